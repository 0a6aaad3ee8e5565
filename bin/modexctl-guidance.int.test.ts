import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_MODEL_NAME } from "@/server/services/agents/model-providers";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { scheduleDeclaringSpec } from "@/server/services/testing/schedule-declaring-spec";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { cli as runCli } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

/**
 * modexctl as the README's examples use it, over the app's real route handlers: the commands it prints
 * for what an instance waits on are ones the server accepts, and the README's option spellings work.
 */
describe("modexctl: the README's examples and the next steps it prints", () => {
  let t: TestServices;
  let server: RestStandIn;
  const workspace = mkdtempSync(path.join(tmpdir(), "modexctl-guidance-"));

  beforeAll(() => {
    // The offline demo model: release-notes' publisher asks approval for its final delivery.
    t = testServices("sqlite", { model: { baseURL: "", model: DEMO_MODEL_NAME }, workspace });
    const teardown = installedTestServices(t);
    return async () => {
      await teardown();
      rmSync(workspace, { recursive: true, force: true });
    };
  });
  beforeAll(async () => {
    server = await new RestStandIn().start();
  });
  afterAll(() => server.stop());

  const cli = (...argv: string[]) => runCli(server.url, ...argv);

  it("an agent's approval: status and run --wait point to approve/deny (answer is refused for it), and approve finishes the run", async () => {
    const run = await cli("run", "release-notes", "--input", "v1.2: faster", "--wait");
    expect(run.code, run.err).toBe(4);
    const id = /^instance\s+(\d+)/m.exec(run.out)![1];
    expect(run.out).toMatch(/waiting for approval at publisher: publisher asks to run deliver/);
    expect(run.out).toContain(`approve with: modexctl approve ${id}, or deny with: modexctl deny ${id} --reason <why>`);
    expect(run.out).not.toMatch(/modexctl answer/);
    expect(run.err).toMatch(new RegExp(`waits for a human \\(approval at publisher\\).*modexctl approve ${id}`));
    expect((await cli("status", id)).out).toContain(`modexctl approve ${id}`);
    expect((await cli("ls")).out).toMatch(new RegExp(`^${id}\\s+release-notes\\s+1\\s+paused \\(waiting for approval\\)`, "m"));

    const answered = await cli("answer", id, "yes");
    expect(answered.code).toBe(1);
    expect(answered.err).toMatch(/approve or deny it/);
    const approved = await cli("approve", id);
    expect(approved.code, approved.err).toBe(0);
    expect((await t.settled(id)).status).toBe("completed");
  });

  it("an instance held at a breakpoint: status names the node and the commands that move it on", async () => {
    const run = await cli("run", "paced-pipeline", "--break", "transform", "--wait", "--json");
    expect(run.code).toBe(5);
    const id = JSON.parse(run.out).summary.instanceId as string;
    const status = await cli("status", id);
    expect(status.out).toMatch(/status\s+paused/);
    expect(status.out).toContain("paused before transform (breakpoint)");
    expect(status.out).toContain(`modexctl step ${id}, or go on with: modexctl resume ${id}`);
    expect((await cli("resume", id)).code).toBe(0);
    expect((await t.settled(id)).status).toBe("completed");
  });

  it("an answer given with modexctl answer is on record: status says what was answered, when and by whom; events names it", async () => {
    const run = await cli("run", "approval-gate", "--input", "v3", "--wait");
    expect(run.code).toBe(4);
    const id = /^instance\s+(\d+)/m.exec(run.out)![1];
    expect((await cli("answer", id, "yes")).code).toBe(0);
    await t.settled(id);
    expect((await cli("status", id)).out).toMatch(/^answered  yes to approve at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, by the API \(access token\)$/m);
    expect((await cli("events", id)).out).toMatch(/deliver_promoted\s+__start__ → approve: answer yes$/m);
  });

  it("hook-create --max-body 65536 --rate 30 makes the hook with those limits", async () => {
    const made = await cli("hook-create", "deploy", "approval-gate", "--auth", "hmac", "--max-body", "65536", "--rate", "30");
    expect(made.code, made.err).toBe(0);
    expect(made.out).toMatch(/^webhook deploy: POST http:\/\/127\.0\.0\.1:\d+\/api\/hooks\/deploy/);
    expect(made.out).toMatch(/secret \(shown once\): \S+/);
    const url = /POST (\S+)/.exec(made.out)![1];
    expect((await cli("hooks")).out.split("\n")[2]).toMatch(new RegExp(`\\s${url}$`));
    expect(await t.services.triggers.hooks.list()).toEqual([expect.objectContaining({ name: "deploy", maxBodyBytes: 65_536, ratePerMinute: 30 })]);
  });

  it("a schedule a spec declared a moment ago can be paused at once, and is refused removal as declared", async () => {
    await t.services.specs.save(scheduleDeclaringSpec("declares-nightly", ['{ name: nightly-tick, cron: "0 2 * * *" }']));
    const paused = await cli("schedule-pause", "nightly-tick");
    expect(paused.code, paused.err).toBe(0);
    expect(paused.out).toBe("schedule nightly-tick paused");
    const removed = await cli("schedule-rm", "nightly-tick");
    expect(removed.code).toBe(1);
    expect(removed.err).toMatch(/declared in spec declares-nightly/);
    const replaced = await cli("schedule", "nightly-tick", "counter-loop", "--cron", "0 3 * * *");
    expect(replaced.code).toBe(1);
    expect(replaced.err).toMatch(/declared in spec declares-nightly: change it there/);
  });

  it("chat send: an approval the turn waits on is given with modexctl chat approve, which the turn then goes on from", async () => {
    // chat send streams the turn's text straight to stdout as it comes.
    const streamed: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (streamed.push(String(chunk)), true));
    const sent = await cli("chat", "send", "new", "run counter-loop").finally(() => write.mockRestore());
    expect(sent.code, sent.err).toBe(4);
    const chat = /modexctl: new chat (\d+) \("run counter-loop"\)/.exec(sent.err)![1];
    const text = streamed.join("");
    expect(text).toContain(`[approval] run_graph {"name":"counter-loop"} waits for you: modexctl chat approve ${chat} [reason…] or modexctl chat deny ${chat} [reason…]`);
    expect(text).not.toContain("/approve");
    const approved = await cli("chat", "approve", chat, "looks", "fine");
    expect(approved.code, approved.err).toBe(0);
    expect(approved.out).toMatch(/^approved \S+$/);
    // The turn goes on with the run it approved; let it end before the database closes.
    for (const end = Date.now() + 10_000; (await t.services.chat.get(chat)).running; ) {
      if (Date.now() > end) throw new Error("the approved chat turn did not end");
      await new Promise((r) => setTimeout(r, 25));
    }
  });
});
