import { beforeAll, describe, expect, it } from "vitest";
import { createTRPCContext } from "@/server/api/trpc";
import { createCaller } from "@/server/api/root";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { approvalsOf } from "@/server/services/agents/approval-records";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as approveRoute from "./instances/[id]/approve/route";
import * as denyRoute from "./instances/[id]/deny/route";

// Approve and deny with an Idempotency-Key, through the real route handlers (and tRPC's control.decide):
// a repeat with the same key answers what the first did (Idempotent-Replayed) and decides nothing twice;
// the same key with another decision or reason is 422; without a key a repeat finds nothing waiting (409).

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const BASE = "http://127.0.0.1:3000";
const BEARER = { authorization: `Bearer ${TEST_TOKEN}` };
const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });

let t: TestServices;
beforeAll(() => {
  // release-notes: the publisher's delivery to __end__ asks first; each run of the drafter and publisher
  // reads its own script (node name → replies, played in order across instances).
  const scripts: Record<string, ScriptedProvider> = {
    drafter: new ScriptedProvider((_r, i) => (i % 2 === 0 ? deliver("publisher", "- fixed a bug") : { text: "sent" })),
    publisher: new ScriptedProvider((_r, i) => (i % 2 === 0 ? deliver("__end__", "Release notes: fixed a bug.") : { text: "done" })),
  };
  t = testServices("sqlite", { provider: ((_c, node) => scripts[node]) as AgentNodeDeps["provider"] });
  return installedTestServices(t);
});

function post(handler: Handler, id: string, verb: string, args: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { host: "127.0.0.1:3000", "content-type": "application/json", ...BEARER };
  if (args.key) headers["idempotency-key"] = args.key;
  const request = new Request(`${BASE}/api/graphs/instances/${id}/${verb}`, { method: "POST", headers, body: JSON.stringify(args.body ?? {}) });
  return handler(request, { params: Promise.resolve({ id }) });
}
const approve = (id: string, args?: { key?: string; body?: unknown }) => post(approveRoute.POST, id, "approve", args);
const deny = (id: string, args?: { key?: string; body?: unknown }) => post(denyRoute.POST, id, "deny", args);

async function waitingInstance(): Promise<string> {
  const { body } = await t.services.commands.create({ spec: "release-notes", input: "fixed a bug" });
  expect((await t.settled(body.instanceId)).status).toBe("paused");
  return body.instanceId;
}

async function recordsOf(instanceId: string) {
  return approvalsOf((await t.services.orchestrator.coordinator.instances.load(instanceId))!);
}

async function errorCode(response: Response) {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe("POST /api/graphs/instances/{id}/approve|deny with an Idempotency-Key", () => {
  it("a repeated approve answers the first answer (Idempotent-Replayed) and records one decision; another request with the key is 422", async () => {
    const id = await waitingInstance();
    const first = await approve(id, { key: "approve-1", body: { reason: "ship it" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstBody = await first.json();
    expect(firstBody).toMatchObject({ command: "APPROVE", instanceId: id });
    expect((await t.settled(id)).status).toBe("completed");

    const again = await approve(id, { key: "approve-1", body: { reason: "ship it" } });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(firstBody);
    expect(await recordsOf(id)).toHaveLength(1);

    const otherReason = await approve(id, { key: "approve-1", body: { reason: "other" } });
    expect(otherReason.status).toBe(422);
    expect(await errorCode(otherReason)).toBe("IDEMPOTENCY_MISMATCH");
    const denied = await deny(id, { key: "approve-1", body: { reason: "ship it" } });
    expect(denied.status).toBe(422);

    // Without a key, a repeat is new work: nothing waits any more.
    expect((await approve(id)).status).toBe(409);
    expect(await recordsOf(id)).toHaveLength(1);
  });

  it("a repeated deny, arriving while the first is being handled, replays it: the agent reads one denial", async () => {
    const id = await waitingInstance();
    const [a, b] = await Promise.all([deny(id, { key: "deny-1", body: { reason: "name the bug" } }), deny(id, { key: "deny-1", body: { reason: "name the bug" } })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.headers.get("idempotent-replayed"), b.headers.get("idempotent-replayed")].sort()).toEqual([null, "true"]);
    await t.settled(id);
    const records = await recordsOf(id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ approved: false, reason: "name the bug", by: "token" });
    // The publisher was told once, then (its script) delivered again and asks again.
    expect((await t.services.orchestrator.coordinator.instances.load(id))?.status).toBe("paused");
    expect((await deny(id, { key: "deny-1", body: { reason: "name the bug" } })).headers.get("idempotent-replayed")).toBe("true");
    expect(await recordsOf(id)).toHaveLength(1);
    expect((await approve(id, { key: "deny-2" })).status).toBe(200);
    expect((await t.settled(id)).status).toBe("completed");
  });

  it("tRPC control.decide takes idempotencyKey: a repeat answers the first result", async () => {
    const id = await waitingInstance();
    const caller = createCaller(createTRPCContext({ headers: new Headers(BEARER), services: t.services }));
    const first = await caller.control.decide({ instanceId: id, approved: true, idempotencyKey: "trpc-1" });
    await t.settled(id);
    const again = await caller.control.decide({ instanceId: id, approved: true, idempotencyKey: "trpc-1" });
    expect(again).toEqual(first);
    await expect(caller.control.decide({ instanceId: id, approved: false, idempotencyKey: "trpc-1" })).rejects.toMatchObject({ code: "UNPROCESSABLE_CONTENT" });
    expect(await recordsOf(id)).toHaveLength(1);
    expect((await t.settled(id)).status).toBe("completed");
  });
});
