import Database from "better-sqlite3";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteSpanSink } from "@/server/db/sqlite-span-sink";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import { cli as runCli, getJson } from "./testing/cli-in-process";
import { RestStandIn } from "./testing/rest-stand-in";

// An agent node's decided approvals and one turn's trace, read over HTTP (GET /api/graphs/instances/{id}/
// approvals and …/trace?node=&turn=) and with `modexctl approvals` / `modexctl trace`. The decisions are
// made as a user makes them: `modexctl deny` / `modexctl approve` over the real routes.

const usage = { inputTokens: 10, outputTokens: 5 };
const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }], usage });

let t: TestServices;
let server: RestStandIn;

beforeAll(() => {
  // release-notes on scripted models: the publisher's delivery to __end__ waits for approval; denied, it
  // tries again with a second text, which is approved.
  const scripts: Record<string, () => ScriptedProvider> = {
    drafter: () => new ScriptedProvider([deliver("publisher", "- fixed login"), { text: "sent" }]),
    // A decision resumes the turn with a new provider: the reply follows from the tool results so far.
    publisher: () =>
      new ScriptedProvider((request) => [deliver("__end__", "fixed login"), deliver("__end__", "Release notes: fixed login."), { text: "published", usage }][request.messages.filter((m) => m.role === "tool").length]),
  };
  t = testServices("sqlite", { provider: ((_c, node) => scripts[node]()) as AgentNodeDeps["provider"] });
  return installedTestServices(t);
});
beforeAll(async () => {
  server = await new RestStandIn().start();
});
afterAll(() => server.stop());

/** The tRPC procedures the web app's approval card and trace view read. */
const trpc = () => createCaller(createTRPCContext({ headers: new Headers({ authorization: `Bearer ${TEST_TOKEN}` }), services: t.services }));

const cli = (...argv: string[]) => runCli(server.url, ...argv);
const get = (pathname: string) => getJson(server.url, pathname);

interface Approvals {
  waiting: { node: string; tool: string; turnId: string; args: unknown } | null;
  decided: { node: string; tool: string; approved: boolean; reason?: string; by: string; at: number; args: unknown }[];
}

/** A run whose publisher was denied once (with a reason) and then approved, both through modexctl. */
async function decidedRun(): Promise<string> {
  const { instanceId } = await t.services.orchestrator.create({ spec: "release-notes", input: "fixed login" });
  expect((await t.settled(instanceId)).status).toBe("paused");
  expect((await cli("deny", instanceId, "--reason", "too short")).code).toBe(0);
  expect((await t.settled(instanceId)).status).toBe("paused");
  expect((await cli("approve", instanceId)).code).toBe(0);
  expect((await t.settled(instanceId)).status).toBe("completed");
  return instanceId;
}

describe("GET /api/graphs/instances/{id}/approvals", () => {
  it("answers what waits, then every decision: tool, arguments, approved or denied, reason, by whom, when", async () => {
    const { instanceId } = await t.services.orchestrator.create({ spec: "release-notes", input: "fixed login" });
    expect((await t.settled(instanceId)).status).toBe("paused");
    const before = (await get(`/api/graphs/instances/${instanceId}/approvals`)).body as unknown as Approvals;
    expect(before.waiting).toMatchObject({ node: "publisher", tool: "deliver", args: expect.stringContaining('"content":"fixed login"') });
    expect(before.decided).toEqual([]);

    expect((await cli("deny", instanceId, "--reason", "too short")).code).toBe(0);
    await t.settled(instanceId);
    expect((await cli("approve", instanceId)).code).toBe(0);
    expect((await t.settled(instanceId)).status).toBe("completed");

    const { status, body } = await get(`/api/graphs/instances/${instanceId}/approvals`);
    expect(status).toBe(200);
    const after = body as unknown as Approvals;
    expect(after.waiting).toBeNull();
    expect(after.decided).toMatchObject([
      { node: "publisher", tool: "deliver", approved: false, reason: "too short", by: "token", args: expect.stringContaining('"content":"fixed login"') },
      { node: "publisher", tool: "deliver", approved: true, by: "token", args: expect.stringContaining("Release notes: fixed login.") },
    ]);
    expect(after.decided[0].at).toBeLessThanOrEqual(after.decided[1].at);
    // The same answer as the tRPC procedure the web app's approval card reads.
    expect(after).toEqual(await trpc().agentRuns.approvals({ instanceId }));
  });

  it("answers 404 NOT_FOUND for an unknown instance", async () => {
    const { status, body } = await get("/api/graphs/instances/nope/approvals");
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: { code: "NOT_FOUND" } });
  });
});

describe("GET /api/graphs/instances/{id}/trace?node=&turn=", () => {
  it("answers the turn's spans (the approvals among them) as the web trace view's procedure does", async () => {
    const id = await decidedRun();
    const turn = (await t.services.usage.forInstance(id)).nodes.find((n) => n.node === "publisher")!.turns[0].turnId;
    const { status, body } = await get(`/api/graphs/instances/${id}/trace?node=publisher&turn=${encodeURIComponent(turn)}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ instanceId: id, node: "publisher", turnId: turn });
    const names = (body.spans as { name: string }[]).map((s) => s.name);
    expect(names.filter((n) => n === "approval deliver")).toHaveLength(2);
    expect(body).toEqual(JSON.parse(JSON.stringify(await trpc().agentRuns.trace({ instanceId: id, node: "publisher", turnId: turn }))));
  });

  it("answers 404 naming what is missing: the instance, a node that ran no turn, a turn the node did not run; 400 without node", async () => {
    const id = await decidedRun();
    const turn = (await t.services.usage.forInstance(id)).nodes.find((n) => n.node === "publisher")!.turns[0].turnId;
    expect((await get(`/api/graphs/instances/nope/trace?node=publisher&turn=${turn}`)).status).toBe(404);
    const node = await get(`/api/graphs/instances/${id}/trace?node=ghost&turn=${turn}`);
    expect(node).toMatchObject({ status: 404, body: { error: { code: "NOT_FOUND" } } });
    expect(JSON.stringify(node.body)).toContain("ghost");
    const other = await get(`/api/graphs/instances/${id}/trace?node=drafter&turn=${turn}`);
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.body)).toContain(turn);
    const bad = await get(`/api/graphs/instances/${id}/trace?turn=${turn}`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('"node"');
  });
});

describe("tRPC agentRuns.trace (the web trace view)", () => {
  /** The procedure over the app's /api/trpc route, as the browser calls it: `error.data` as it formats it. */
  async function overRoute(input: { instanceId: string; node: string; turnId: string }) {
    const { GET } = await import("@/app/api/trpc/[trpc]/route");
    const query = encodeURIComponent(JSON.stringify(input));
    const res = await GET(new Request(`http://127.0.0.1:3000/api/trpc/agentRuns.trace?input=${query}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } }));
    return { status: res.status, body: (await res.json()) as { error?: { message: string; data: { code: string; missing: string | null } } } };
  }

  it("refuses an unknown node or turn with NOT_FOUND naming which (data.missing), not an empty span list", async () => {
    const id = await decidedRun();
    const turn = (await t.services.usage.forInstance(id)).nodes.find((n) => n.node === "publisher")!.turns[0].turnId;
    const refused = (input: { node: string; turnId: string }) => trpc().agentRuns.trace({ instanceId: id, ...input }).then(() => null, (e: unknown) => e);
    const turnErr = await refused({ node: "publisher", turnId: "bogus-turn" });
    expect(turnErr).toBeInstanceOf(TRPCError);
    expect(turnErr).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("turn bogus-turn of node publisher") });
    expect(await refused({ node: "ghost", turnId: turn })).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("node ghost") });

    const missingTurn = await overRoute({ instanceId: id, node: "publisher", turnId: "bogus-turn" });
    expect(missingTurn.status).toBe(404);
    expect(missingTurn.body.error!.data).toMatchObject({ code: "NOT_FOUND", missing: "turn" });
    expect((await overRoute({ instanceId: id, node: "ghost", turnId: turn })).body.error!.data).toMatchObject({ code: "NOT_FOUND", missing: "node" });
    expect((await overRoute({ instanceId: "nope", node: "publisher", turnId: turn })).body.error!.data).toMatchObject({ code: "NOT_FOUND", missing: "instance" });
    const found = await overRoute({ instanceId: id, node: "publisher", turnId: turn });
    expect(found.status).toBe(200);
  });

  it("still answers a turn that left spans but no log entry (a rolled-back step), as requireTurn accepts it", async () => {
    const id = await decidedRun();
    const db = new Database(t.databaseFile!);
    try {
      const at = Date.now();
      new SqliteSpanSink(db).write({
        traceId: "t-rolled-back", spanId: "s-rolled-back", name: "invoke_agent publisher", kind: "internal", startTime: at, endTime: at + 5,
        attributes: {}, status: { code: "ok" }, sessionId: `${id}:publisher`, turnId: "rolled-back-turn",
      });
    } finally {
      db.close();
    }
    const trace = await trpc().agentRuns.trace({ instanceId: id, node: "publisher", turnId: "rolled-back-turn" });
    expect(trace.spans.map((s) => s.spanId)).toEqual(["s-rolled-back"]);
  });
});

describe("modexctl approvals and trace", () => {
  it("approvals: what waits and a table of decisions; --json the API's answer", async () => {
    const { instanceId } = await t.services.orchestrator.create({ spec: "release-notes", input: "fixed login" });
    await t.settled(instanceId);
    const waiting = await cli("approvals", instanceId);
    expect(waiting.code).toBe(0);
    expect(waiting.out).toMatch(/^waiting: publisher asks to call deliver .*fixed login/);
    expect(waiting.out).toContain(`decide: modexctl approve ${instanceId}  or  modexctl deny ${instanceId} --reason`);
    expect(waiting.out).toContain("decided: none yet");

    const id = await decidedRun();
    const decided = await cli("approvals", id);
    expect(decided.code).toBe(0);
    const lines = decided.out.split("\n");
    expect(lines[0]).toBe("waiting: nothing");
    expect(lines[2]).toMatch(/^DECIDED\s+NODE\s+TOOL\s+DECISION\s+BY\s+VERSION\s+REASON\s+ARGS$/);
    expect(lines[4]).toMatch(/publisher\s+deliver\s+denied\s+token\s+\d+\s+too short\s+\{.*fixed login/);
    expect(lines[5]).toMatch(/publisher\s+deliver\s+approved\s+token\s+\d+\s+-\s+\{.*Release notes/);

    const json = await cli("approvals", id, "--json");
    expect(JSON.parse(json.out)).toEqual((await get(`/api/graphs/instances/${id}/approvals`)).body);
  });

  it("trace: a summary and the spans as an indented tree; --json the API's answer", async () => {
    const id = await decidedRun();
    const turn = (await t.services.usage.forInstance(id)).nodes.find((n) => n.node === "publisher")!.turns[0].turnId;
    const text = await cli("trace", id, "publisher", turn);
    expect(text.code).toBe(0);
    // Three model calls of 15 tokens: the root span's total is not counted again.
    expect(text.out).toMatch(new RegExp(`^trace of publisher · instance ${id} \\(turn ${turn}\\): \\d+ spans · \\S+ m?s · 45 tokens\n`));
    expect(text.out).toMatch(/\n {2}chat \S+\s+\+\S+ m?s\s+\S+ m?s\s+15\s+finished: tool_calls\n/);
    expect(text.out).toMatch(/\nSPAN\s+AT\s+DURATION\s+TOKENS\s+STATUS\n/);
    expect(text.out).toMatch(/\n\S[^\n]*\n/); // the root, not indented
    expect(text.out).toMatch(/\n {2,}approval deliver\s+\+\S+ \S+\s+\S+ \S+\s+\S*\s*\S+/);

    const json = await cli("trace", id, "publisher", turn, "--json");
    expect(JSON.parse(json.out)).toEqual((await get(`/api/graphs/instances/${id}/trace?node=publisher&turn=${turn}`)).body);
  });

  it("exits 2 for an unknown instance, node or turn", async () => {
    expect((await cli("approvals", "nope")).code).toBe(2);
    const id = await decidedRun();
    const missing = await cli("trace", id, "ghost", "t-1");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("ghost");
  });
});
