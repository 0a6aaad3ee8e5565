import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { schemaIssuesOf } from "@/server/api/service-error-mapping";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";

/**
 * Every tRPC procedure, table-driven: without credentials UNAUTHORIZED (before the input is even
 * parsed), with credentials and bad arguments BAD_REQUEST naming the offending path. A test below
 * fails when a procedure is added to the router without a row here.
 */
type Call = (caller: ReturnType<typeof createCaller>, input: unknown) => Promise<unknown>;

interface Row {
  call: Call;
  valid: unknown;
  /** Bad arguments and the issue path they must produce; null for procedures without input. */
  bad: { input: unknown; path: (string | number)[] } | null;
}

const any = (x: unknown) => x as never;

const ROWS: Record<string, Row> = {
  "specs.list": { call: (c) => c.specs.list(), valid: undefined, bad: null },
  "specs.get": { call: (c, i) => c.specs.get(any(i)), valid: { spec: "map-reduce" }, bad: { input: { spec: 5 }, path: ["spec"] } },
  "specs.validate": { call: (c, i) => c.specs.validate(any(i)), valid: { yaml: "name: x" }, bad: { input: {}, path: ["yaml"] } },
  "specs.save": { call: (c, i) => c.specs.save(any(i)), valid: null, bad: { input: { yaml: "" }, path: ["yaml"] } },
  "specs.history": { call: (c, i) => c.specs.history(any(i)), valid: { name: "map-reduce" }, bad: { input: { name: "" }, path: ["name"] } },
  "specs.jsonSchema": { call: (c) => c.specs.jsonSchema(), valid: undefined, bad: null },
  "specs.nodeTypes": { call: (c) => c.specs.nodeTypes(), valid: undefined, bad: null },
  "specs.archive": { call: (c, i) => c.specs.archive(any(i)), valid: null, bad: { input: { name: "" }, path: ["name"] } },
  "specs.delete": { call: (c, i) => c.specs.delete(any(i)), valid: null, bad: { input: { name: 3 }, path: ["name"] } },
  "instances.list": { call: (c, i) => c.instances.list(any(i)), valid: {}, bad: { input: { limit: 0 }, path: ["limit"] } },
  "instances.page": { call: (c, i) => c.instances.page(any(i)), valid: { waiting: true }, bad: { input: { archived: "maybe" }, path: ["archived"] } },
  "instances.archive": { call: (c, i) => c.instances.archive(any(i)), valid: null, bad: { input: { instanceId: "" }, path: ["instanceId"] } },
  "instances.bulk": { call: (c, i) => c.instances.bulk(any(i)), valid: null, bad: { input: { action: "explode", ids: ["1"] }, path: ["action"] } },
  "instances.delete": { call: (c, i) => c.instances.delete(any(i)), valid: null, bad: { input: {}, path: ["instanceId"] } },
  "instances.get": { call: (c, i) => c.instances.get(any(i)), valid: null, bad: { input: { instanceId: "x", version: 0 }, path: ["version"] } },
  "instances.timeline": { call: (c, i) => c.instances.timeline(any(i)), valid: null, bad: { input: { instanceId: "x", tail: -1 }, path: ["tail"] } },
  "instances.timelineRows": { call: (c, i) => c.instances.timelineRows(any(i)), valid: null, bad: { input: { instanceId: "x", version: 1, offset: 0, limit: 0 }, path: ["limit"] } },
  "instances.point": { call: (c, i) => c.instances.point(any(i)), valid: null, bad: { input: { instanceId: "x", eventId: 0 }, path: ["eventId"] } },
  "instances.fork": { call: (c, i) => c.instances.fork(any(i)), valid: null, bad: { input: { instanceId: "x", eventId: 1, spec: "" }, path: ["spec"] } },
  "instances.create": { call: (c, i) => c.instances.create(any(i)), valid: null, bad: { input: { spec: "" }, path: ["spec"] } },
  "instances.events": { call: (c, i) => c.instances.events(any(i)), valid: null, bad: { input: { instanceId: "x", afterId: -1 }, path: ["afterId"] } },
  "instances.onEvent": { call: (c, i) => c.instances.onEvent(any(i)), valid: null, bad: { input: { instanceId: "x", lastEventId: "abc" }, path: ["lastEventId"] } },
  "control.pause": { call: (c, i) => c.control.pause(any(i)), valid: null, bad: { input: {}, path: ["instanceId"] } },
  "control.stop": { call: (c, i) => c.control.stop(any(i)), valid: null, bad: { input: { instanceId: "" }, path: ["instanceId"] } },
  "control.resume": { call: (c, i) => c.control.resume(any(i)), valid: null, bad: { input: { instanceId: 7 }, path: ["instanceId"] } },
  "control.deliver": { call: (c, i) => c.control.deliver(any(i)), valid: null, bad: { input: { instanceId: "x", node: "" }, path: ["node"] } },
  "control.answer": { call: (c, i) => c.control.answer(any(i)), valid: null, bad: { input: { value: 1 }, path: ["instanceId"] } },
  "control.reinvoke": { call: (c, i) => c.control.reinvoke(any(i)), valid: null, bad: { input: { instanceId: null }, path: ["instanceId"] } },
  "control.recover": { call: (c, i) => c.control.recover(any(i)), valid: null, bad: { input: { instanceId: "" }, path: ["instanceId"] } },
  "control.decide": { call: (c, i) => c.control.decide(any(i)), valid: null, bad: { input: { instanceId: "x", approved: "yes" }, path: ["approved"] } },
  "agentRuns.approvals": { call: (c, i) => c.agentRuns.approvals(any(i)), valid: null, bad: { input: { instanceId: "" }, path: ["instanceId"] } },
  "agentRuns.knowledge": { call: (c, i) => c.agentRuns.knowledge(any(i)), valid: null, bad: { input: {}, path: ["instanceId"] } },
  "agentRuns.live": { call: (c, i) => c.agentRuns.live(any(i)), valid: null, bad: { input: { instanceId: 5 }, path: ["instanceId"] } },
  "agentRuns.usage": { call: (c, i) => c.agentRuns.usage(any(i)), valid: null, bad: { input: { instanceId: "x", version: 0 }, path: ["version"] } },
  "agentRuns.trace": { call: (c, i) => c.agentRuns.trace(any(i)), valid: null, bad: { input: { instanceId: "x", node: "", turnId: "t" }, path: ["node"] } },
  "control.step": { call: (c, i) => c.control.step(any(i)), valid: null, bad: { input: { instanceId: "" }, path: ["instanceId"] } },
  "control.setBreakpoints": { call: (c, i) => c.control.setBreakpoints(any(i)), valid: null, bad: { input: { instanceId: "x", nodes: [""] }, path: ["nodes", 0] } },
  "chat.status": { call: (c) => c.chat.status(), valid: undefined, bad: null },
  "chat.list": { call: (c) => c.chat.list(), valid: undefined, bad: null },
  "chat.send": { call: (c, i) => c.chat.send(any(i)), valid: null, bad: { input: { message: "   " }, path: ["message"] } },
  "chat.decide": { call: (c, i) => c.chat.decide(any(i)), valid: null, bad: { input: { sessionId: "s", transactionId: "t", approved: "yes" }, path: ["approved"] } },
  "chat.cancel": { call: (c, i) => c.chat.cancel(any(i)), valid: null, bad: { input: { sessionId: "" }, path: ["sessionId"] } },
  "chat.events": { call: (c, i) => c.chat.events(any(i)), valid: null, bad: { input: { sessionId: "s", afterSeq: -1 }, path: ["afterSeq"] } },
  "chat.onEvent": { call: (c, i) => c.chat.onEvent(any(i)), valid: null, bad: { input: { sessionId: "s", lastEventId: "x" }, path: ["lastEventId"] } },
  "chat.get": { call: (c, i) => c.chat.get(any(i)), valid: null, bad: { input: { sessionId: "" }, path: ["sessionId"] } },
  "chat.rename": { call: (c, i) => c.chat.rename(any(i)), valid: null, bad: { input: { sessionId: "s", title: "  " }, path: ["title"] } },
  "chat.remove": { call: (c, i) => c.chat.remove(any(i)), valid: null, bad: { input: { sessionId: "" }, path: ["sessionId"] } },
  "chat.trace": { call: (c, i) => c.chat.trace(any(i)), valid: null, bad: { input: { sessionId: "s", turnId: "" }, path: ["turnId"] } },
  "agents.list": { call: (c) => c.agents.list(), valid: undefined, bad: null },
  "agents.get": { call: (c, i) => c.agents.get(any(i)), valid: { agent: "coder" }, bad: { input: { agent: "" }, path: ["agent"] } },
  "agents.history": { call: (c, i) => c.agents.history(any(i)), valid: { name: "coder" }, bad: { input: {}, path: ["name"] } },
  "agents.validate": { call: (c, i) => c.agents.validate(any(i)), valid: { yaml: "name: x" }, bad: { input: {}, path: ["yaml"] } },
  "agents.save": { call: (c, i) => c.agents.save(any(i)), valid: null, bad: { input: { yaml: "" }, path: ["yaml"] } },
  "agents.tools": { call: (c) => c.agents.tools(), valid: undefined, bad: null },
  "agents.jsonSchema": { call: (c) => c.agents.jsonSchema(), valid: undefined, bad: null },
  "agents.mcpServers": { call: (c) => c.agents.mcpServers(), valid: undefined, bad: null },
  "extensions.list": { call: (c) => c.extensions.list(), valid: undefined, bad: null },
  "cluster.status": { call: (c) => c.cluster.status(), valid: undefined, bad: null },
  "traces.recent": { call: (c, i) => c.traces.recent(any(i)), valid: { source: "chat" }, bad: { input: { cursor: "older" }, path: ["cursor"] } },
  "traces.chooseTraining": { call: (c, i) => c.traces.chooseTraining(any(i)), valid: null, bad: { input: { spanId: "root", included: true }, path: ["spanId"] } },
  "extensions.resetStatistics": { call: (c) => c.extensions.resetStatistics(), valid: undefined, bad: null },
  "extensions.previewSecretMasking": { call: (c, i) => c.extensions.previewSecretMasking(any(i)), valid: null, bad: { input: { text: 5 }, path: ["text"] } },
  "extensions.setEnabled": { call: (c, i) => c.extensions.setEnabled(any(i)), valid: null, bad: { input: { name: "logging" }, path: ["enabled"] } },
  "triggers.schedules": { call: (c) => c.triggers.schedules(), valid: undefined, bad: null },
  "triggers.saveSchedule": { call: (c, i) => c.triggers.saveSchedule(any(i)), valid: null, bad: { input: { name: "x", spec: "map-reduce", cron: "" }, path: ["cron"] } },
  "triggers.pauseSchedule": { call: (c, i) => c.triggers.pauseSchedule(any(i)), valid: null, bad: { input: {}, path: ["name"] } },
  "triggers.resumeSchedule": { call: (c, i) => c.triggers.resumeSchedule(any(i)), valid: null, bad: { input: {}, path: ["name"] } },
  "triggers.deleteSchedule": { call: (c, i) => c.triggers.deleteSchedule(any(i)), valid: null, bad: { input: { name: "" }, path: ["name"] } },
  "triggers.hooks": { call: (c) => c.triggers.hooks(), valid: undefined, bad: null },
  "triggers.createHook": { call: (c, i) => c.triggers.createHook(any(i)), valid: null, bad: { input: { name: "h", spec: "map-reduce", auth: "basic" }, path: ["auth"] } },
  "triggers.rotateHook": { call: (c, i) => c.triggers.rotateHook(any(i)), valid: null, bad: { input: {}, path: ["name"] } },
  "triggers.deleteHook": { call: (c, i) => c.triggers.deleteHook(any(i)), valid: null, bad: { input: {}, path: ["name"] } },
  "triggers.startedBy": { call: (c, i) => c.triggers.startedBy(any(i)), valid: null, bad: { input: { instanceId: "" }, path: ["instanceId"] } },
  "notifications.list": { call: (c) => c.notifications.list(), valid: undefined, bad: null },
  "notifications.create": { call: (c, i) => c.notifications.create(any(i)), valid: null, bad: { input: { url: "https://example.com", events: "failed" }, path: ["events"] } },
  "notifications.setEnabled": { call: (c, i) => c.notifications.setEnabled(any(i)), valid: null, bad: { input: { id: "n", enabled: "yes" }, path: ["enabled"] } },
  "notifications.remove": { call: (c, i) => c.notifications.remove(any(i)), valid: null, bad: { input: { id: "" }, path: ["id"] } },
  "notifications.test": { call: (c, i) => c.notifications.test(any(i)), valid: null, bad: { input: {}, path: ["id"] } },
  "notifications.deliveries": { call: (c, i) => c.notifications.deliveries(any(i)), valid: null, bad: { input: { id: 5 }, path: ["id"] } },
};

const PUBLIC = new Set(["health"]);

// Installed as the app's services too: the /api/trpc route handler finds them.
let t: TestServices;
beforeAll(() => {
  t = testServices();
  return installedTestServices(t);
});

const callerWith = (headers: Record<string, string>) =>
  createCaller(createTRPCContext({ headers: new Headers(headers), services: t.services }));
const anonymous = () => callerWith({});
const authorized = () => callerWith({ authorization: `Bearer ${TEST_TOKEN}` });

async function trpcError(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe("tRPC contract", () => {
  it("the table covers every procedure of the router", () => {
    const procedures = Object.keys(appRouter._def.procedures).filter((p) => !PUBLIC.has(p)).sort();
    expect(procedures).toEqual(Object.keys(ROWS).sort());
  });

  describe.each(Object.entries(ROWS))("%s", (_name, row) => {
    it("answers UNAUTHORIZED without credentials, even for bad arguments", async () => {
      for (const input of [row.valid, row.bad?.input]) {
        expect((await trpcError(row.call(anonymous(), input))).code).toBe("UNAUTHORIZED");
      }
      const wrong = callerWith({ authorization: "Bearer nope-nope-nope" });
      expect((await trpcError(row.call(wrong, row.valid))).code).toBe("UNAUTHORIZED");
    });

    if (row.bad) it("answers BAD_REQUEST with the issue path on bad arguments", async () => {
      const error = await trpcError(row.call(authorized(), row.bad!.input));
      expect(error.code).toBe("BAD_REQUEST");
      expect(schemaIssuesOf(error.cause)?.map((i) => i.path)).toContainEqual(row.bad!.path);
    });
  });

  it("a session cookie from login works like the bearer token", async () => {
    const session = t.services.auth.createSession();
    const caller = callerWith({ cookie: `other=1; modex_session=${encodeURIComponent(session.value)}` });
    expect((await caller.specs.list()).map((s) => s.name)).toContain("map-reduce");
    const last = session.value.at(-1);
    for (const value of [session.value.slice(0, -1) + (last === "0" ? "1" : "0"), `${session.value}0`]) {
      const forged = callerWith({ cookie: `modex_session=${encodeURIComponent(value)}` });
      expect((await trpcError(forged.specs.list())).code).toBe("UNAUTHORIZED");
    }
  });

  it("health stays public", async () => {
    expect(await anonymous().health()).toMatchObject({ ok: true });
  });
});

describe("tRPC procedures with credentials", () => {
  it("create → get → events; control errors map to NOT_FOUND and CONFLICT", async () => {
    const caller = authorized();
    const created = await caller.instances.create({ spec: "approval-gate", input: "v1" });
    await t.settled(created.instanceId);
    const view = await caller.instances.get({ instanceId: created.instanceId });
    expect(view.summary.status).toBe("paused");
    expect(view.waitingFor).toMatchObject({ kind: "human_input", node: "approve" });
    const events = await caller.instances.events({ instanceId: created.instanceId });
    expect(events[0].event).toMatchObject({ type: "instance_status", to: "running" });
    const after = await caller.instances.events({ instanceId: created.instanceId, afterId: events[1].id });
    expect(after[0].id).toBe(events[2].id);

    expect((await trpcError(caller.control.resume({ instanceId: created.instanceId }))).code).toBe("CONFLICT");
    expect((await trpcError(caller.control.pause({ instanceId: "missing" }))).code).toBe("NOT_FOUND");
    expect((await trpcError(caller.instances.create({ spec: "missing" }))).code).toBe("NOT_FOUND");
    expect(await caller.control.answer({ instanceId: created.instanceId, value: "yes" })).toMatchObject({ command: "ANSWER" });
    await t.settled(created.instanceId);
    expect((await caller.instances.get({ instanceId: created.instanceId })).summary.result?.[0].content).toBe("published (answer: yes)");
  });

  it("specs.save dedups by content; a spec that does not compile is BAD_REQUEST with located issues", async () => {
    const caller = authorized();
    const yaml = (await caller.specs.get({ spec: "counter-loop" })).yaml;
    expect(await caller.specs.save({ yaml: `# a comment changes nothing\n${yaml}` })).toMatchObject({ created: false });
    const error = await trpcError(caller.specs.save({ yaml: "name: bad\nnodes: 3\n" }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(await caller.specs.validate({ yaml: "name: bad\nnodes: 3\n" })).toMatchObject({ ok: false, issues: [expect.objectContaining({ line: 2 })] });
  });

  it("onEvent of an unknown instance is NOT_FOUND before any stream starts", async () => {
    expect((await trpcError(authorized().instances.onEvent({ instanceId: "missing" }))).code).toBe("NOT_FOUND");
  });

  it("onEvent replays the log from lastEventId, then streams live events as tracked tuples until aborted", async () => {
    const caller = authorized();
    const { instanceId } = await caller.instances.create({ spec: "approval-gate", input: "x" });
    await t.settled(instanceId);
    const logged = await caller.instances.events({ instanceId });
    const controller = new AbortController();
    const stream = await caller.instances.onEvent({ instanceId, lastEventId: String(logged[1].id) });
    const seen: [string, { event: { type: string } }][] = [];
    const reading = (async () => {
      for await (const item of stream as AsyncIterable<[string, { event: { type: string } }]>) {
        seen.push(item);
        if (item[1].event.type === "run_finished") controller.abort();
        if (controller.signal.aborted) break;
      }
    })();
    await caller.control.answer({ instanceId, value: "no" });
    await t.settled(instanceId);
    await reading;
    expect(seen[0][0]).toBe(String(logged[2].id));
    const ids = seen.map((s) => Number(s[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(seen.map((s) => s[1].event.type)).toContain("run_finished");
  });
});

describe("the /api/trpc route", () => {
  it("refuses a cross-origin POST with 403, and formats bad arguments with data.issues", async () => {
    const { POST, GET } = await import("@/app/api/trpc/[trpc]/route");
    const cross = await POST(
      new Request("http://127.0.0.1:3000/api/trpc/control.pause", {
        method: "POST",
        headers: { origin: "http://evil.example", host: "127.0.0.1:3000", authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ instanceId: "x" }),
      }),
    );
    expect(cross.status).toBe(403);
    const input = encodeURIComponent(JSON.stringify({ instanceId: "x", version: 0 }));
    const bad = await GET(new Request(`http://127.0.0.1:3000/api/trpc/instances.get?input=${input}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } }));
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { data: { issues: { path: string[] }[] } } };
    expect(body.error.data.issues[0].path).toEqual(["version"]);
    const anon = await GET(new Request(`http://127.0.0.1:3000/api/trpc/specs.list`));
    expect(anon.status).toBe(401);
  });
});
