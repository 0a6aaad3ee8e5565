import { describe, expect, it } from "vitest";
import { ClusterWorker } from "./cluster-worker";
import { EventListener, type ClusterEvent } from "./event-listener";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph, testGraphCatalog } from "./testing/cluster-graphs";

describe("engine events across processes (NOTIFY + the event table)", () => {
  it("a listener sees every stored event once, in order per instance, and catches up after its connection is cut", async () => {
    await using fx = await ClusterFixture.create();
    const listener = await EventListener.start({ url: fx.url, reconnectMs: 300 });
    const seen: ClusterEvent[] = [];
    listener.subscribe((e) => seen.push(e));
    const worker = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 2000 });
    try {
      const graph = chainGraph(15, 20);
      await fx.control.createMany({ graph, inputs: Array.from({ length: 10 }, (_, i) => ({ instanceId: `e${i}`, input: i })) });
      await fx.until(async () => seen.length > 20, 10_000, "first events");
      // Cut the LISTEN connection: events committed while it is down are read on reconnect.
      await fx.pool.query("SELECT pg_terminate_backend($1)", [listener.backendPid]);
      await fx.until(async () => (await fx.countStatus("completed")) === 10, 30_000, "completed");
      await fx.until(() => fx.idle(), 5_000, "released");
      const stored = await fx.query<{ id: string }>("SELECT id FROM engine_events ORDER BY id");
      await fx.until(async () => seen.length >= stored.length, 5_000, "listener caught up");
      expect(listener.connections).toBeGreaterThanOrEqual(2);
      expect(seen.map((e) => e.id).sort((x, y) => x - y)).toEqual(stored.map((r) => Number(r.id)));
      for (let i = 0; i < 10; i++) {
        const ids = seen.filter((e) => e.instanceId === `e${i}`).map((e) => e.id);
        expect(ids).toEqual([...ids].sort((x, y) => x - y));
        expect(seen.filter((e) => e.instanceId === `e${i}` && e.type === "run_finished")).toHaveLength(1);
      }
    } finally {
      await worker.stop(1000);
      await listener.close();
    }
  }, 60_000);

  const insertSql = "INSERT INTO engine_events (instance_id, version, type, payload, created_at) VALUES ($1, 1, 'x', '{}', now()) RETURNING id";

  it("an event numbered below the newest at a listener's start, committed after it (another writer's batch in flight), is handed on", async () => {
    await using fx = await ClusterFixture.create();
    const writer = await fx.pool.connect();
    try {
      await writer.query("BEGIN");
      const late = Number((await writer.query<{ id: string }>(insertSql, ["late"])).rows[0].id);
      const before = Number((await fx.pool.query<{ id: string }>(insertSql, ["before"])).rows[0].id);
      expect(before).toBeGreaterThan(late);
      const listener = await EventListener.start({ url: fx.url });
      try {
        const seen: ClusterEvent[] = [];
        listener.subscribe((e) => seen.push(e));
        await writer.query("COMMIT");
        const after = Number((await fx.pool.query<{ id: string }>(insertSql, ["after"])).rows[0].id);
        await fx.until(async () => seen.some((e) => e.id === after), 10_000, "the event after the start");
        await fx.until(async () => seen.some((e) => e.id === late), 5_000, "the late event");
        expect(seen.map((e) => e.instanceId).sort()).toEqual(["after", "late"]);
      } finally {
        await listener.close();
      }
    } finally {
      writer.release();
    }
  }, 60_000);

  it("a key that never commits (a rolled-back insert) followed by more than a page of events does not stall the listener", async () => {
    await using fx = await ClusterFixture.create();
    const listener = await EventListener.start({ url: fx.url });
    try {
      const seen: ClusterEvent[] = [];
      listener.subscribe((e) => seen.push(e));
      const writer = await fx.pool.connect();
      try {
        await writer.query("BEGIN");
        await writer.query(insertSql, ["rolled back"]);
        await writer.query("ROLLBACK");
      } finally {
        writer.release();
      }
      await fx.query("INSERT INTO engine_events (instance_id, version, type, payload, created_at) SELECT 'bulk', 1, 'x', '{}', now() FROM generate_series(1, 1500)");
      await fx.until(async () => seen.length === 1500, 10_000, "the bulk events");
      await fx.query(insertSql, ["next"]);
      await fx.until(async () => seen.some((e) => e.instanceId === "next"), 10_000, "the event after them");
      expect(seen).toHaveLength(1501);
      expect(new Set(seen.map((e) => e.id)).size).toBe(1501);
    } finally {
      await listener.close();
    }
  }, 60_000);
});
