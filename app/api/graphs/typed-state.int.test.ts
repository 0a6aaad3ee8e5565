import { beforeAll, describe, expect, it } from "vitest";
import { installedTestServices } from "@/server/services/testing/installed-test-services";
import { TEST_TOKEN, testServices, type TestServices } from "@/server/services/testing/test-services";
import * as answerRoute from "./instances/[id]/answer/route";
import * as instanceRoute from "./instances/[id]/route";
import * as instancesRoute from "./instances/route";
import * as validateRoute from "./specs/validate/route";

// Typed state over REST: a spec whose node writes a value its state field's type refuses is refused
// with the line and column of that value; a write the spec cannot foresee (the run's input) fails the
// node, and the instance FAILED says why. Before, the value was stored, the run went on, and once paused
// the instance could never resume (its state no longer loaded) while it still showed "paused".

const BASE = "http://127.0.0.1:3000";
const AUTH = { authorization: `Bearer ${TEST_TOKEN}` };

/** count is a number; `put` writes the run's input to it, then `ask` waits for a person. */
const spec = (name: string, putConfig: string) => `name: ${name}
version: "1"
state:
  count: { type: number, default: 0 }
nodes:
  - { name: put, node_type: function, config: ${putConfig} }
  - { name: ask, node_type: human_input, config: { prompt: "go on?" } }
  - { name: bump, node_type: function, config: { op: increment, field: count } }
edges:
  - { from: __start__, to: put }
  - { from: put, to: ask }
  - { from: ask, to: bump }
  - { from: bump, to: __end__ }
`;

let t: TestServices;
beforeAll(() => {
  t = testServices();
  return installedTestServices(t);
});

const json = (method: string, path: string, body?: unknown, contentType = "application/json") =>
  new Request(`${BASE}${path}`, { method, headers: { ...AUTH, "content-type": contentType }, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });

describe("typed state over REST", () => {
  it("POST /api/graphs/specs/validate refuses a set_state literal of another type, at the value's line and column", async () => {
    const response = await validateRoute.POST(json("POST", "/api/graphs/specs/validate", spec("typed-literal", '{ op: set_state, field: count, value: "ten" }'), "application/yaml"));
    expect(response.status).toBe(200);
    const { ok, issues } = (await response.json()) as { ok: boolean; issues: { path: string; message: string; line: number; column: number }[] };
    expect(ok).toBe(false);
    expect(issues).toEqual([expect.objectContaining({ message: 'state field "count" is number, not string', line: 6 })]);
    expect(issues[0].column).toBeGreaterThan(60);
  });

  it("a run whose input does not fit the field fails at the writing node (FAILED, saying why), not paused for ever", async () => {
    await t.services.specs.save(spec("typed-input", "{ op: set_state, field: count }"));
    const created = await instancesRoute.POST(json("POST", "/api/graphs/instances", { spec: "typed-input", input: "hello" }));
    expect(created.status).toBe(201);
    const { instanceId } = (await created.json()) as { instanceId: string };
    await t.settled(instanceId);

    const view = await instanceRoute.GET(json("GET", `/api/graphs/instances/${instanceId}`), { params: Promise.resolve({ id: instanceId }) });
    const { summary, invocations } = (await view.json()) as {
      summary: { status: string; state: Record<string, unknown> };
      invocations: { node: string; status: string; error: string | null }[];
    };
    expect(summary.status).toBe("failed");
    expect(summary.state.count).toBe(0);
    const put = invocations.find((i) => i.node === "put")!;
    expect(put.status).toBe("FAILED");
    expect(put.error).toContain('state field "count" is number, not string: "hello"');
    expect(invocations.some((i) => i.node === "ask")).toBe(false);
  });

  it("a paused run whose stored state no longer fits (written before writes were checked) ends FAILED on its answer, naming the field", async () => {
    const { instanceId } = await t.services.orchestrator.create({ spec: "typed-input", input: 5 });
    expect((await t.settled(instanceId)).status).toBe("paused");
    const { coordinator } = t.services.orchestrator;
    const stored = (await coordinator.instances.loadState(instanceId)) as Record<string, unknown>;
    await coordinator.checkpointState(instanceId, { ...stored, count: "hello" });

    const answered = await answerRoute.POST(json("POST", `/api/graphs/instances/${instanceId}/answer`, { value: "yes" }), { params: Promise.resolve({ id: instanceId }) });
    expect(answered.status).toBe(200);
    expect((await t.settled(instanceId)).status).toBe("failed");
    const failed = (await t.services.events.list(instanceId)).map((e) => e.event).find((e) => e.type === "instance_status" && e.to === "failed");
    expect(failed).toMatchObject({ from: "running", error: expect.stringContaining("count: Invalid input: expected number, received string") });
  });

  it("an input that fits runs on: paused at ask, then answered and completed with the field incremented", async () => {
    const { instanceId } = await t.services.orchestrator.create({ spec: "typed-input", input: 41 });
    expect((await t.settled(instanceId)).status).toBe("paused");
    await t.services.control.answer(instanceId, "yes");
    expect((await t.settled(instanceId)).status).toBe("completed");
    expect((await t.services.instances.get({ instanceId })).summary.state).toMatchObject({ count: 42 });
  });
});
