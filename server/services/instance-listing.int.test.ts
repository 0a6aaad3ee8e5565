import { describe, expect, it } from "vitest";
import { testServices } from "./testing/test-services";

/**
 * The Instances list through the services: archiving through the control plane, and deleting. The list's
 * filters, pages and totals are the stores' contract (conformance/instance-listing.conformance.ts, run in
 * instance-stores.int.test.ts and pg-instance-stores.int.test.ts).
 */
describe.each(["sqlite", "memory"] as const)("instance listing (%s)", (storage) => {
  it("hides archived instances unless asked, and brings them back", async () => {
    await using t = testServices(storage);
    const { orchestrator, instances, control } = t.services;
    const a = await orchestrator.create({ spec: "counter-loop", input: null });
    const b = await orchestrator.create({ spec: "counter-loop", input: null });
    await t.settled(a.instanceId);
    await t.settled(b.instanceId);
    expect(await control.archive(a.instanceId)).toEqual({ instanceId: a.instanceId, archived: true });
    const shown = await instances.page({});
    expect(shown.items.map((r) => r.instanceId)).toEqual([b.instanceId]);
    expect(shown.counts.archived).toBe(1);
    const only = await instances.page({ archived: "only" });
    expect(only.items.map((r) => [r.instanceId, r.archived])).toEqual([[a.instanceId, true]]);
    expect((await instances.page({ archived: "include" })).total).toBe(2);
    expect((await instances.get({ instanceId: a.instanceId, node: null })).summary.archived).toBe(true);
    await control.archive(a.instanceId, false);
    expect((await instances.page({})).total).toBe(2);
  });
});

describe("deleting an instance (sqlite)", () => {
  it("removes every row it owns, and refuses while it runs", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, instances, control, events } = t.services;
    const done = await orchestrator.create({ spec: "map-reduce", input: null });
    await t.settled(done.instanceId);
    const slow = await orchestrator.create({ spec: "paced-pipeline", input: null });
    await expect(control.delete(slow.instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
    await control.stop(slow.instanceId);
    await t.settled(slow.instanceId);

    expect(await control.delete(done.instanceId)).toEqual({ instanceId: done.instanceId, deleted: true });
    await expect(instances.get({ instanceId: done.instanceId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await events.list(done.instanceId))).toEqual([]);
    const { db } = (t as unknown as { temp: { db: import("@/server/db/graph-database").Database } }).temp;
    for (const table of ["graph_instances", "graph_io_records", "deliver_rows", "engine_events", "node_invocations", "instance_search"]) {
      expect(db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE instance_id = ?`).get(done.instanceId)).toEqual({ n: 0 });
    }
    // The other instance is untouched.
    expect((await instances.get({ instanceId: slow.instanceId })).invocations.length).toBeGreaterThan(0);
    expect(await control.delete(slow.instanceId)).toMatchObject({ deleted: true });
    await expect(control.delete(slow.instanceId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("the instance view's read side", () => {
  it("folds a subgraph's inner run under its node, and scopes its timeline rows", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, instances } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "subgraph", input: "bob" });
    await t.settled(instanceId);
    const summary = await instances.timeline({ instanceId });
    expect(summary.state.states).toMatchObject({
      __start__: "completed",
      prepare: "completed",
      greeting: "completed",
      finish: "completed",
      __end__: "completed",
      "greeting/format": "completed",
      "greeting/shout": "completed",
    });
    expect(summary.state.usedEdges).toContain("greeting/format->greeting/shout");
    const rows = await instances.timelineRows({ instanceId, version: 1, offset: 0, limit: 100 });
    const inner = rows.filter((r) => r.scope === "greeting");
    expect(inner.length).toBeGreaterThan(5);
    expect(inner.every((r) => r.event.type !== "node_started" || ["__start__", "format", "shout", "__end__"].includes(r.event.node))).toBe(true);
    expect(rows.filter((r) => !r.scope && r.event.type === "node_started").map((r) => (r.event as { node: string }).node)).toEqual([
      "__start__",
      "prepare",
      "greeting",
      "finish",
      "__end__",
    ]);
    const view = await instances.get({ instanceId, node: null });
    expect(view.topology.nodes.find((n) => n.name === "greeting")?.inner).toEqual(["format", "shout"]);
  });

  it("marks as joins only nodes that wait for several branches, and shows the state per version", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, instances, control } = t.services;
    const joinsOf = async (spec: string) => {
      const { instanceId } = await orchestrator.create({ spec, input: null });
      await t.settled(instanceId);
      const view = await instances.get({ instanceId, node: null });
      return { instanceId, view, joins: view.topology.nodes.filter((n) => n.isJoin).map((n) => n.name) };
    };
    const counter = await joinsOf("counter-loop");
    expect(counter.joins).toEqual([]);
    expect(counter.view.summary.state).toMatchObject({ count: 5 });
    expect(counter.view.summary.stateFields).toEqual([{ name: "count", type: "number", description: "How many times the loop body ran." }]);
    expect((await joinsOf("review-cycle")).joins).toEqual([]);
    expect((await joinsOf("research-team")).joins).toEqual(["writer"]);

    await control.reinvoke(counter.instanceId, null);
    await t.settled(counter.instanceId);
    const v1 = await instances.get({ instanceId: counter.instanceId, version: 1, node: null });
    expect(v1.summary.state).toMatchObject({ count: 5 });
    const v2 = await instances.get({ instanceId: counter.instanceId, node: null });
    expect(v2.summary.shownVersion).toBe(2);
    expect(v2.summary.state).not.toBeNull();
  });

  it("says why a run failed: the node and its error, and times each version by its own events", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, instances } = t.services;
    // No model is configured here: the coder agent node fails, saying so.
    const { instanceId } = await orchestrator.create({ spec: "review-cycle", input: "write it" });
    const settled = await t.settled(instanceId);
    expect(settled.status).toBe("failed");
    const summary = await instances.timeline({ instanceId });
    expect(summary.state.failure).toEqual({ node: "coder", error: expect.any(String) });
    expect(summary.state.startedAt).not.toBeNull();
    expect(summary.state.endedAt).toBeGreaterThanOrEqual(summary.state.startedAt!);
  });
});

describe.each(["sqlite", "memory"] as const)("archiving and deleting specs (%s)", (storage) => {
  it("hides an archived spec unless asked, and deletes one only once it has no instances", async () => {
    await using t = testServices(storage);
    const { specs, orchestrator, control } = t.services;
    await specs.save(`name: scratch\nversion: "1"\nnodes:\n  - { name: a, node_type: function, config: { op: identity } }\nedges:\n  - { from: __start__, to: a }\n`);
    await specs.save(`name: scratch\nversion: "2"\nnodes:\n  - { name: a, node_type: function, config: { op: identity } }\nedges:\n  - { from: __start__, to: a }\n`);
    expect(await specs.archive("scratch")).toEqual({ name: "scratch", archived: true });
    expect((await specs.list()).map((s) => s.name)).not.toContain("scratch");
    expect((await specs.list({ archived: "only" })).map((s) => [s.name, s.archived])).toEqual([["scratch", true]]);
    expect((await specs.list({ archived: "include" })).map((s) => s.name)).toContain("scratch");
    await specs.archive("scratch", false);
    expect((await specs.list()).find((s) => s.name === "scratch")?.archived).toBe(false);
    await expect(specs.archive("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });

    const { instanceId } = await orchestrator.create({ spec: "scratch", input: 1 });
    await t.settled(instanceId);
    await expect(specs.delete("scratch")).rejects.toMatchObject({ code: "INVALID_STATE", message: expect.stringContaining("1 instance") });
    if (storage === "sqlite") {
      await control.delete(instanceId);
      expect(await specs.delete("scratch")).toEqual({ name: "scratch", deleted: 2 });
      expect((await specs.list({ archived: "include" })).map((s) => s.name)).not.toContain("scratch");
      await expect(specs.get("scratch")).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
  });
});
