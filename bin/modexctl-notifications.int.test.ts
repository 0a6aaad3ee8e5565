import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { httpReceiver, type HttpReceiver } from "@/server/services/testing/http-receiver";
import { quickSpec } from "@/server/services/testing/run-specs";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { cli as runCli } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

/** `modexctl notifications` over the app's real route handlers, to a real HTTP receiver. */
describe("modexctl notifications", () => {
  let t: TestServices;
  let server: RestStandIn;
  let receiver: HttpReceiver;

  beforeAll(() => {
    t = testServices("sqlite", undefined, { notificationDispatch: { pollMs: 20, retryDelaysMs: [50] } });
    return installedTestServices(t);
  });
  beforeAll(async () => {
    t.services.notifications.begin();
    await t.services.specs.save(quickSpec("quick"));
    receiver = await httpReceiver();
    server = await new RestStandIn().start();
  });
  afterAll(async () => {
    await server.stop();
    await receiver[Symbol.asyncDispose]();
  });

  const cli = (...argv: string[]) => runCli(server.url, ...argv);

  it("add prints the id and the secret once; the list shows it; test sends a signed test; a run's delivery shows in --deliveries; rm deletes it", async () => {
    const added = await cli("notifications", "add", receiver.url, "--events", "completed,failed", "--graph", "quick");
    expect(added.code, added.err).toBe(0);
    const id = /^notification (ntf_\w+): POST /m.exec(added.out)![1];
    const secret = /^secret \(shown once\): (\w+)$/m.exec(added.out)![1];

    const list = await cli("notifications");
    expect(list.out).toMatch(new RegExp(`^${id}\\s+completed,failed\\s+quick\\s+enabled\\s+${receiver.url.replaceAll("/", "\\/")}`, "m"));

    const tested = await cli("notifications", "test", id);
    expect(tested.out).toMatch(/^test delivery dlv_\d+: delivered \(HTTP 200\)$/);
    const [got] = receiver.received;
    expect(got.headers["x-modex-signature"]).toBe(`sha256=${createHmac("sha256", secret).update(got.body).digest("hex")}`);

    const run = await cli("run", "quick", "--input", "x", "--wait");
    expect(run.code, run.err).toBe(0);
    await receiver.waitFor(2);
    let shown = "";
    for (let i = 0; i < 100 && !/completed\s+\d+\s+delivered\s+1\s+200/.test(shown); i++) {
      shown = (await cli("notifications", "--deliveries", id)).out;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(shown).toMatch(/^DELIVERY\s+AT\s+EVENT\s+INSTANCE\s+STATE\s+ATTEMPTS\s+LAST/);
    expect(shown).toMatch(/completed\s+\d+\s+delivered\s+1\s+200/);
    expect(shown).toMatch(/test\s+\(test\)\s+delivered\s+1\s+200/);

    const removed = await cli("notifications", "rm", id);
    expect(removed.out).toBe(`notification ${id} deleted`);
    expect((await cli("notifications", "rm", id)).code).not.toBe(0);
  });

  it("says what is wrong: a bad URL, an unknown event, a missing --events or id", async () => {
    const bad = await cli("notifications", "add", "ftp://example.com", "--events", "failed");
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/url must be http:\/\/ or https:\/\/, not ftp:\/\//);
    expect((await cli("notifications", "add", receiver.url, "--events", "finished")).err).toMatch(/unknown event finished: events are completed, failed, stopped, waiting/);
    expect((await cli("notifications", "add", receiver.url)).err).toMatch(/needs --events/);
    expect((await cli("notifications", "test")).err).toMatch(/notifications test needs <id>/);
    expect((await cli("notifications", "frob", "x")).err).toMatch(/takes add, rm or test/);
  });
});
