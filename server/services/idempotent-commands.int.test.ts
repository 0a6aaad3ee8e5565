import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { testServices, type TestServices } from "./testing/test-services";

function count(t: TestServices, sql: string, ...args: unknown[]): number {
  const reader = new BetterSqlite3(t.databaseFile!, { readonly: true });
  try {
    return reader.prepare(sql).pluck().get(...args) as number;
  } finally {
    reader.close();
  }
}

const instancesOf = (t: TestServices, graph: string) => count(t, `SELECT COUNT(*) FROM graph_instances WHERE graph_name = ? AND version = 1`, graph);

describe("Idempotency-Key on the commands that create work", () => {
  it("a repeated create answers the first one (replayed) and starts no second run, also when both arrive at once", async () => {
    await using t = testServices();
    const { commands } = t.services;
    const first = await commands.create({ spec: "map-reduce", input: ["a", "bb"] }, "key-1");
    const again = await commands.create({ spec: "map-reduce", input: ["a", "bb"] }, "key-1");
    expect(first.replayed).toBe(false);
    expect(again).toMatchObject({ replayed: true, status: 201, body: first.body });
    const [x, y] = await Promise.all([
      commands.create({ spec: "map-reduce", input: ["c"] }, "key-2"),
      commands.create({ spec: "map-reduce", input: ["c"] }, "key-2"),
    ]);
    expect(x.body.instanceId).toBe(y.body.instanceId);
    await t.services.orchestrator.idle();
    expect(instancesOf(t, "map-reduce")).toBe(2);
    // Without a key, each call is new work.
    await commands.create({ spec: "map-reduce", input: ["c"] });
    await t.services.orchestrator.idle();
    expect(instancesOf(t, "map-reduce")).toBe(3);
  });

  it("the same key with another request is refused with IDEMPOTENCY_MISMATCH", async () => {
    await using t = testServices();
    await t.services.commands.create({ spec: "map-reduce", input: ["a"] }, "k");
    await expect(t.services.commands.create({ spec: "map-reduce", input: ["b"] }, "k")).rejects.toMatchObject({ code: "IDEMPOTENCY_MISMATCH" });
    await t.services.orchestrator.idle();
  });

  it("the key commits with the work: after a crash before the answer was stored, a repeat rebuilds it", async () => {
    await using t = testServices();
    const first = await t.services.commands.create({ spec: "approval-gate", input: "x" }, "crash-key");
    // As if the process died between the commit of the instance (with its key) and storing the answer.
    const writer = new BetterSqlite3(t.databaseFile!);
    writer.prepare(`UPDATE idempotency_keys SET status = NULL, response = NULL`).run();
    writer.close();
    const again = await t.services.commands.create({ spec: "approval-gate", input: "x" }, "crash-key");
    expect(again).toMatchObject({ replayed: true, status: 201, body: { instanceId: first.body.instanceId, version: 1 } });
    await t.services.orchestrator.idle();
    expect(instancesOf(t, "approval-gate")).toBe(1);
  });

  it("deliver and answer: a repeat adds no second deliver and records no second answer", async () => {
    await using t = testServices();
    const { commands } = t.services;
    const { body } = await commands.create({ spec: "approval-gate", input: "release" }, null);
    expect((await t.settled(body.instanceId)).status).toBe("paused");
    const d1 = await commands.deliver({ instanceId: body.instanceId, node: "approve", content: "note" }, "d-key");
    const d2 = await commands.deliver({ instanceId: body.instanceId, node: "approve", content: "note" }, "d-key");
    expect(d2).toMatchObject({ replayed: true, body: { deliverId: d1.body.deliverId } });
    expect(count(t, `SELECT COUNT(*) FROM deliver_rows WHERE instance_id = ? AND source_node = '__external__'`, body.instanceId)).toBe(1);

    const a1 = await commands.answer({ instanceId: body.instanceId, value: "yes", by: "test" }, "a-key");
    const a2 = await commands.answer({ instanceId: body.instanceId, value: "yes", by: "test" }, "a-key");
    expect(a1.replayed).toBe(false);
    expect(a2).toMatchObject({ replayed: true, body: a1.body });
    expect((await t.settled(body.instanceId)).status).toBe("completed");
    const attrs = JSON.parse(String(count(t, `SELECT attrs FROM graph_instances WHERE instance_id = ? AND is_latest = 1`, body.instanceId)));
    expect(attrs.answers).toHaveLength(1);
  });

  it("reinvoke: a repeat after the new version exists answers it; a key whose run never started runs again", async () => {
    await using t = testServices();
    const { commands } = t.services;
    const { body } = await commands.create({ spec: "map-reduce", input: ["a"] });
    await t.settled(body.instanceId);
    const r1 = await commands.reinvoke({ instanceId: body.instanceId, input: ["bb"] }, "r-key");
    await t.settled(body.instanceId);
    const r2 = await commands.reinvoke({ instanceId: body.instanceId, input: ["bb"] }, "r-key");
    expect(r2).toMatchObject({ replayed: true, body: { version: 2 } });
    expect(r1.body.version).toBe(2);
    expect((await t.services.orchestrator.coordinator.instances.load(body.instanceId))?.version).toBe(2);
  });
});
