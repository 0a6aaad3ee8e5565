import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServices } from "@/server/services/app-services";
import { installAppServices } from "@/server/services/app-services-singleton";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { invoke } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A port nothing listens on (it was free a moment ago). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/** Ten 300 ms delays in a row: a run that is still running for ~3 s. */
const SLOW_SPEC = `name: slow-steps
version: "1"
nodes:
${Array.from({ length: 10 }, (_, i) => `  - { name: step${i}, node_type: delay, config: { ms: 300 } }`).join("\n")}
edges:
  - { from: __start__, to: step0 }
${Array.from({ length: 9 }, (_, i) => `  - { from: step${i}, to: step${i + 1} }`).join("\n")}
  - { from: step9, to: __end__ }
`;

describe("modexctl against the REST API", () => {
  let t: TestServices;
  let server: RestStandIn;

  beforeAll(() => {
    t = testServices();
    return installedTestServices(t);
  });
  beforeAll(async () => {
    await t.services.specs.save(SLOW_SPEC);
    server = await new RestStandIn().start();
  });
  afterAll(() => server.stop());

  const cli = (...argv: string[]) => invoke(server.url, argv).done;

  it("run → status (waiting) → answer → events --follow → status (result)", async () => {
    const specs = await cli("specs");
    expect(specs.code).toBe(0);
    expect(specs.out).toMatch(/^NAME\s+VERSION\s+SPEC ID/);
    expect(specs.out).toMatch(/approval-gate/);

    const run = await cli("run", "approval-gate", "--input", "release 7");
    expect(run.code).toBe(0);
    const id = /started (\d+)/.exec(run.out)![1];
    await t.settled(id);

    const waiting = await cli("status", id);
    expect(waiting.out).toMatch(/status\s+paused/);
    expect(waiting.out).toMatch(/waiting for input at approve: Approve this deploy\?/);
    expect(waiting.out).toMatch(/NODE\s+TYPE\s+STATUS\s+RUNS/);
    // The node it waits at says so, not CANCELLED with an "interrupt" error.
    expect(waiting.out).toMatch(/^approve\s+\S+\s+waiting for input\s+1\s/m);
    expect(waiting.out).not.toMatch(/CANCELLED/);

    expect((await cli("resume", id)).code).toBe(1); // RESUME_GRAPH refuses: it waits for an answer
    const answered = await cli("answer", id, "yes");
    expect(answered).toMatchObject({ code: 0 });
    // The status once the resume is committed, with the first resumed node: this graph's nodes after
    // the human are synchronous, so the run may already have ended.
    expect(answered.out).toMatch(/answered \d+: (running|completed)/);

    const events = await cli("events", id, "--follow", "--interval", "50");
    expect(events.code).toBe(0);
    expect(events.out).toMatch(/interrupt_raised\s+at approve/);
    expect(events.out).toMatch(/instance_status\s+running → completed/);
    expect(events.out.trim().split("\n").at(-1)).toMatch(/run_finished\s+reached END/);

    const done = await cli("status", id, "--json");
    expect(JSON.parse(done.out).summary).toMatchObject({ status: "completed", result: [{ content: "published (answer: yes)" }] });
    expect((await cli("status", id)).out).toMatch(/result\s+published \(answer: yes\)/);

    const ls = await cli("ls", "--status", "completed", "--json");
    expect(JSON.parse(ls.out).map((i: { instanceId: string }) => i.instanceId)).toContain(id);

    const again = await cli("reinvoke", id, "--input", "release 8");
    expect(again.code, again.err).toBe(0);
    expect(again.out).toMatch(new RegExp(`reinvoked ${id}: (running|paused) \\(version 2\\)`));
    await t.settled(id);
    // The version chain: each version's input and output, the shown (latest) one marked.
    const chain = (await cli("status", id)).out;
    expect(chain).toMatch(/VERSION\s+STATUS\s+STARTED\s+INPUT\s+OUTPUT/);
    expect(chain).toMatch(/^1\s+completed\s+\S+ \S+\s+release 7\s+published \(answer: yes\)$/m);
    expect(chain).toMatch(/^2 \*\s+paused\s+\S+ \S+\s+release 8\s+-$/m);
    expect((await cli("status", id, "--version", "1")).out).toMatch(/^1 \*\s+completed/m);
  });

  it("run --wait, deliver, pause/stop errors, and exit codes 2 (not found) and 3 (not authorized)", async () => {
    const run = await cli("run", "paced-pipeline", "--input", "42", "--wait", "--json");
    expect(run.code, run.err).toBe(0);
    const view = JSON.parse(run.out);
    expect(view.summary).toMatchObject({ status: "completed", result: [{ content: "published ITEM 42" }] });
    const id = view.summary.instanceId as string;

    const deliver = await cli("deliver", id, "publish", "late", "news");
    expect(deliver.out).toMatch(/delivered \d+ to publish .*a new run started/);
    await t.settled(id);
    expect((await cli("status", id)).out).toMatch(/result\s+published late news/);

    expect((await cli("pause", id)).code).toBe(1);
    expect((await cli("status", "999")).code).toBe(2);
    const denied = await invoke(server.url, ["specs", "--token", "wrong-token"], {}).done;
    expect(denied.code).toBe(3);
    const bad = await cli("deliver", id, "nope", "x");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/unknown node "nope"/);
  });

  it("run --wait exits 4 when the run waits for a human, and says what it waits for", async () => {
    const run = await cli("run", "approval-gate", "--input", "release 9", "--wait");
    expect(run.code, run.err).toBe(4);
    expect(run.out).toMatch(/status\s+paused/);
    expect(run.out).toMatch(/waiting for input at approve: Approve this deploy\? Answer yes or no\./);
    expect(run.err).toMatch(/waits for a human \(input at approve\): Approve this deploy\?.*answer with: modexctl answer \d+ <value>/);

    const json = await cli("run", "approval-gate", "--wait", "--json");
    expect(json.code).toBe(4);
    expect(JSON.parse(json.out)).toMatchObject({ summary: { status: "paused" }, waitingFor: { node: "approve" } });
  });

  it("run --wait exits 6 while the run still runs at --timeout, and 5 when it ends without completing", async () => {
    const slow = await cli("run", "slow-steps", "--wait", "--timeout", "1", "--json");
    expect(slow.code, slow.err).toBe(6);
    const id = JSON.parse(slow.out).summary.instanceId as string;
    expect(JSON.parse(slow.out).summary.status).toBe("running");
    expect(slow.err).toMatch(new RegExp(`${id} is still running after 1 s \\(--timeout\\)`));

    const waiting = invoke(server.url, ["run", "slow-steps", "--wait"]);
    const running = () => t.services.instances.list({ status: "running" });
    await until("a second slow run", async () => (await running()).length === 2);
    const second = (await running()).find((i) => i.instanceId !== id)!;
    expect((await cli("stop", second.instanceId)).code).toBe(0);
    const stopped = await waiting.done;
    expect(stopped.code, stopped.err).toBe(5);
    expect(stopped.out).toMatch(/status\s+stopped/);
    expect(stopped.err).toMatch(/did not complete: it is stopped/);
    expect((await cli("stop", id)).code).toBe(0);
  });

  it("--json prints every error as JSON on stdout, with the same exit codes as the text errors", async () => {
    const cases: [string[], number, Record<string, unknown>][] = [
      [["status", "999"], 2, { code: "NOT_FOUND", status: 404 }],
      [["run", "no-such-spec"], 2, { code: "NOT_FOUND", status: 404 }],
      [["specs", "--token", "wrong-token"], 3, { code: "UNAUTHORIZED", status: 401 }],
      [["status", "1", "2"], 1, { code: "USAGE", message: "status takes 1 argument(s), got 2" }],
      [["frobnicate"], 1, { code: "USAGE", message: 'unknown command "frobnicate"' }],
      [["ls", "--status", "sleepy"], 1, { code: "BAD_REQUEST", status: 400, issues: [{ path: ["status"] }] }],
    ];
    for (const [argv, exitCode, error] of cases) {
      const text = await cli(...argv);
      const json = await cli(...argv, "--json");
      expect({ argv, code: json.code }).toEqual({ argv, code: exitCode });
      expect(text.code).toBe(exitCode);
      expect(json.err).toBe("");
      const parsed = JSON.parse(json.out);
      expect(Object.keys(parsed)).toEqual(["error"]);
      expect(parsed.error).toMatchObject({ ...error, message: expect.any(String) });
      expect(parsed.error.message).not.toBe("");
      expect(text.err).toContain(parsed.error.message);
    }

    const paused = JSON.parse((await cli("run", "approval-gate", "--wait", "--json")).out).summary.instanceId as string;
    const refused = await cli("resume", paused, "--json");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toEqual({ error: { code: "INVALID_STATE", status: 409, message: expect.stringMatching(/waits for/) } });

    const nobody = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await invoke(nobody, ["specs", "--json"]).done;
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.out)).toEqual({ error: { code: "UNREACHABLE", message: `cannot reach the Modex server at ${nobody} (ECONNREFUSED); is it running? (--url / MODEX_URL)` } });
  });

  it("run, answer and deliver retried after a lost answer do the work once: the server replays its first answer", async () => {
    const before = (await t.services.instances.list()).length;
    let dropped = 0;
    server.dropAnswer = (method, pathname) => method === "POST" && dropped++ === 0 && /instances(\/\d+\/(answer|deliver))?$/.test(pathname);
    try {
      const run = await cli("run", "approval-gate", "--input", "once", "--wait", "--json");
      expect(run.code, run.err).toBe(4);
      expect(run.err).toMatch(/POST \/api\/graphs\/instances: (ECONNRESET|UND_ERR_SOCKET)[^;]*; retrying in 250 ms with the same Idempotency-Key/);
      expect(run.err).toMatch(/had already done POST \/api\/graphs\/instances \(Idempotent-Replayed\)/);
      expect((await t.services.instances.list()).length).toBe(before + 1);
      const id = JSON.parse(run.out).summary.instanceId as string;

      dropped = 0;
      const answered = await cli("answer", id, "yes");
      expect(answered.code, answered.err).toBe(0);
      expect(answered.err).toMatch(/Idempotent-Replayed/);
      const done = await t.settled(id);
      expect(done.status).toBe("completed");
      const runs = (await t.services.events.list(id)).filter((e) => e.event.type === "run_started");
      expect(runs).toHaveLength(2); // the first run, and one resume: the repeated answer ran nothing

      dropped = 0;
      const delivered = await cli("deliver", id, "publish", "late", "--json");
      expect(delivered.code, delivered.err).toBe(0);
      await t.settled(id);
      const view = await t.services.instances.get({ instanceId: id });
      expect(view.delivers.filter((d) => d.content === "late")).toHaveLength(1);
    } finally {
      server.dropAnswer = () => false;
    }
  });

  it("recover refuses an instance that is not crashed (409, exit 1) and an unknown one (exit 2)", async () => {
    const paused = JSON.parse((await cli("run", "approval-gate", "--wait", "--json")).out).summary.instanceId as string;
    const refused = await cli("recover", paused, "--json");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toEqual({ error: { code: "INVALID_STATE", status: 409, message: expect.stringMatching(/only a crashed instance is recovered/) } });
    expect((await cli("recover", "987654")).code).toBe(2);
  });

  it("run --break pauses before a node; step runs one node; breakpoints clears; resume finishes", async () => {
    const run = await cli("run", "paced-pipeline", "--input", "bp", "--break", "transform", "--wait", "--json");
    expect(run.code, run.err).toBe(5); // paused: did not complete
    const id = JSON.parse(run.out).summary.instanceId as string;
    expect((await t.services.instances.get({ instanceId: id })).heldAt).toBe("transform");
    const stepped = await cli("step", id);
    expect(stepped.code, stepped.err).toBe(0);
    expect(stepped.out).toMatch(/^STEP: \d+ is (running|paused)/);
    await t.settled(id);
    expect((await t.services.instances.get({ instanceId: id })).heldAt).toBe("pace_publish");
    expect((await cli("breakpoints", id, "ghost")).code).toBe(1);
    const cleared = await cli("breakpoints", id, "");
    expect(cleared.out).toMatch(/breakpoints of \d+: none/);
    expect((await cli("resume", id)).code).toBe(0);
    expect((await t.settled(id)).status).toBe("completed");
  });

  it("events --follow reconnects after a server restart and resumes after the last event it printed", async () => {
    const run = await cli("run", "approval-gate", "--input", "release 10", "--wait", "--json");
    const id = JSON.parse(run.out).summary.instanceId as string;

    const follow = invoke(server.url, ["events", id, "--follow", "--interval", "50", "--json"]);
    await until("the events so far", () => follow.out.some((l) => l.includes("interrupt_raised")));
    await server.stop();
    await until("the reconnecting note", () => follow.err.some((l) => l.includes("lost the server")));
    // While the server is down the instance moves on: these events are logged after the last one printed.
    await t.services.control.answer(id, "yes");
    await t.settled(id);
    await new Promise((r) => setTimeout(r, 300));
    await server.start();

    const result = await follow.done;
    expect(result.code, result.err).toBe(0);
    expect(result.err).toMatch(new RegExp(`lost the server at ${server.url} \\(ECONNREFUSED\\); reconnecting for up to 60 s`));
    expect(result.err).toMatch(/reconnected to .* after \d+\.\d s; resuming after event \d+/);
    const events = result.out.split("\n").map((l) => JSON.parse(l) as { id: number; event: { type: string } });
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    expect(ids).toEqual((await t.services.events.list(id)).map((e) => e.id));
    expect(events.at(-1)!.event.type).toBe("run_finished");
  });

  it("run --wait rides out a server restart and exits 0 when the run completes", async () => {
    const before = new Set((await t.services.instances.list()).map((i) => i.instanceId));
    const waiting = invoke(server.url, ["run", "slow-steps", "--wait"]);
    await until("the slow run", async () => (await t.services.instances.list()).some((i) => !before.has(i.instanceId)));
    await server.stop();
    await until("the reconnecting note", () => waiting.err.some((l) => l.includes("lost the server")));
    await new Promise((r) => setTimeout(r, 300));
    await server.start();
    const result = await waiting.done;
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/status\s+completed/);
    expect(result.err).toMatch(/reconnected to /);
  });

  it("events --follow gives up after --reconnect-timeout with exit 1", async () => {
    const run = await cli("run", "approval-gate", "--wait", "--json");
    const id = JSON.parse(run.out).summary.instanceId as string;
    const follow = invoke(server.url, ["events", id, "--follow", "--interval", "50", "--reconnect-timeout", "1", "--json"]);
    await until("the events so far", () => follow.out.length > 0);
    await server.stop();
    const started = Date.now();
    const result = await follow.done;
    const elapsed = Date.now() - started;
    await server.start();
    expect(result.code).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5_000);
    expect(JSON.parse(result.out.split("\n").at(-1)!)).toEqual({
      error: { code: "RECONNECT_GAVE_UP", message: expect.stringMatching(/gave up reconnecting to .* after 1\.\d s \(--reconnect-timeout\)/) },
    });
  });
});

describe("modexctl recover, on a server with MODEX_RECOVERY=off", () => {
  it("shows a crashed instance with the command that recovers it, and recover re-runs it to completion", async () => {
    await using t = testServices("sqlite", undefined, { exclusive: true, autoRecovery: false });
    const record = await t.services.specs.resolve("paced-pipeline");
    const { graph } = await t.services.specs.compile(record);
    // An instance a previous server process was running when it was killed.
    const dead = await t.services.orchestrator.coordinator.instances.create({
      graphName: graph.name,
      specId: record.specId,
      nodeIdMap: graph.nodeIdMap,
      input: { content: "q" },
      attrs: { executor_process_id: "previous-server", heartbeat: Date.now() },
    });
    await startAppServices(t.services, {});
    t.services.recovery.stop();
    installAppServices(t.services);
    await using server = await new RestStandIn().start();
    try {
      const crashed = await invoke(server.url, ["status", dead.instanceId]).done;
      expect(crashed.out).toMatch(/status\s+crashed/);
      expect(crashed.out).toContain(`re-run it from its ledger with: modexctl recover ${dead.instanceId}`);

      const recovered = await invoke(server.url, ["recover", dead.instanceId]).done;
      expect(recovered.code, recovered.err).toBe(0);
      expect(recovered.out).toBe(`RECOVER: ${dead.instanceId} is running (version 1)`);
      expect((await t.settled(dead.instanceId)).status).toBe("completed");
      expect((await invoke(server.url, ["status", dead.instanceId]).done).out).toMatch(/result\s+published ITEM Q/);
    } finally {
      installAppServices(null);
    }
  });
});

describe("modexctl against a server that is not Modex", () => {
  async function httpServer(answer: (path: string) => { status: number; type: string; body: string }): Promise<Server & AsyncDisposable> {
    const server = createServer((req, res) => {
      const { status, type, body } = answer(req.url ?? "/");
      res.writeHead(status, { "content-type": type }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return Object.assign(server, { [Symbol.asyncDispose]: () => new Promise<void>((r) => server.close(() => r())) });
  }
  const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

  it("says so (with what /api/health answered) instead of 'not found'", async () => {
    await using other = await httpServer(() => ({ status: 404, type: "text/html; charset=utf-8", body: "<html><body>Not Found</body></html>" }));
    const text = await invoke(urlOf(other), ["status", "1"]).done;
    expect(text.code).toBe(1);
    expect(text.err).toBe(`modexctl: ${urlOf(other)} is not a Modex server (GET /api/health answered 404 text/html)`);
    const json = await invoke(urlOf(other), ["run", "map-reduce", "--json"]).done;
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({ error: { code: "NOT_MODEX", message: `${urlOf(other)} is not a Modex server (GET /api/health answered 404 text/html)` } });
  });

  it("tells a JSON health check of another service, and a JSON API that is not Modex's, from Modex", async () => {
    await using other = await httpServer((p) =>
      p === "/api/health" ? { status: 200, type: "application/json", body: '{"status":"UP"}' } : { status: 401, type: "application/json", body: '{"message":"login first"}' },
    );
    const res = await invoke(urlOf(other), ["specs"]).done;
    expect(res.code).toBe(1);
    expect(res.err).toBe(`modexctl: ${urlOf(other)} is not a Modex server (GET /api/health answered 200 application/json without "service": "modex")`);
  });
});
