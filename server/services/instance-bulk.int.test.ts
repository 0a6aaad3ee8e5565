import { describe, expect, it } from "vitest";
import type { Database } from "@/server/db/graph-database";
import { InstanceBulkActions } from "./instance-bulk";
import { testServices, type TestServices } from "./testing/test-services";

/** Bulk archive and delete through the services (SQLite): named ids, a list filter, running runs, the cap. */
async function finished(t: TestServices, spec: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { instanceId } = await t.services.orchestrator.create({ spec, input: null });
    await t.settled(instanceId);
    ids.push(instanceId);
  }
  return ids;
}

const dbOf = (t: TestServices) => (t as unknown as { temp: { db: Database } }).temp.db;

describe("bulk actions on instances (sqlite)", () => {
  it("deletes named ids as one delete does, skips a running one and an unknown one with why", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, bulk, instances, control } = t.services;
    const done = await finished(t, "map-reduce", 3);
    const slow = await orchestrator.create({ spec: "paced-pipeline", input: null });

    const result = await bulk.apply({ action: "delete", ids: [...done, slow.instanceId, "no-such-run", done[0]] });
    expect(result).toMatchObject({ action: "delete", matched: 5, done: 3 });
    expect(Object.fromEntries(result.skipped.map((s) => [s.instanceId, s.reason]))).toEqual({ "no-such-run": "not_found", [slow.instanceId]: "running" });
    expect(result.skipped.find((s) => s.reason === "running")?.message).toContain("cannot be deleted");
    for (const id of done) {
      await expect(instances.get({ instanceId: id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      for (const table of ["graph_instances", "graph_io_records", "engine_events", "node_invocations", "instance_search", "agent_node_memory"]) {
        expect(dbOf(t).prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE instance_id = ?`).get(id)).toEqual({ n: 0 });
      }
    }
    expect((await instances.page({})).items.map((r) => r.instanceId)).toEqual([slow.instanceId]);
    await control.stop(slow.instanceId);
    await t.settled(slow.instanceId);
  });

  it("acts on every instance a filter matches, over several pages of the listing, and nothing else", async () => {
    await using t = testServices("sqlite");
    const { control, instances } = t.services;
    const maps = await finished(t, "map-reduce", 4);
    const loops = await finished(t, "counter-loop", 2);
    // The filter's ids are read in pages: three of them here.
    const bulk = new InstanceBulkActions({ control, listing: instances, idPage: 2 });
    const archived = await bulk.apply({ action: "archive", filter: { graph: "map-reduce", status: "completed" } });
    expect(archived).toEqual({ action: "archive", matched: 4, done: 4, skipped: [] });
    expect((await instances.page({ archived: "only" })).items.map((r) => r.instanceId).sort()).toEqual([...maps].sort());
    expect((await instances.page({})).items.map((r) => r.instanceId).sort()).toEqual([...loops].sort());

    expect(await bulk.apply({ action: "unarchive", filter: { archived: "only", q: maps[0] } })).toMatchObject({ matched: 1, done: 1 });
    expect((await instances.page({ archived: "only" })).total).toBe(3);

    const deleted = await bulk.apply({ action: "delete", filter: { archived: "only" } });
    expect(deleted).toMatchObject({ matched: 3, done: 3, skipped: [] });
    expect((await instances.page({ archived: "include" })).items.map((r) => r.instanceId).sort()).toEqual([maps[0], ...loops].sort());
  });

  it("refuses more than its cap before doing anything, and a request with both or neither of ids and filter", async () => {
    await using t = testServices("sqlite");
    const { control, instances } = t.services;
    const ids = await finished(t, "map-reduce", 3);
    const capped = new InstanceBulkActions({ control, listing: instances, cap: 2 });
    await expect(capped.apply({ action: "delete", filter: { graph: "map-reduce" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("3 instances match; one request acts on at most 2"),
    });
    await expect(capped.apply({ action: "delete", ids })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await instances.page({})).total).toBe(3);
    expect(await capped.apply({ action: "archive", ids: ids.slice(0, 2) })).toMatchObject({ done: 2 });
    await expect(capped.apply({ action: "archive" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(capped.apply({ action: "archive", ids, filter: {} })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
