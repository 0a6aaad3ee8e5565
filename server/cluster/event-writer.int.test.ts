import type pg from "pg";
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "@/server/graph/events";
import { EventWriter } from "./event-writer";
import { LeaseStore } from "./lease-store";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph } from "./testing/cluster-graphs";
import { openWorkerDatabase } from "./worker-database";

const status = (instanceId: string, version: number): EngineEvent => ({ type: "instance_status", instanceId, version, from: null, to: "running" });
const drained = (instanceId: string, node: string): EngineEvent => ({ type: "drained", instanceId, reason: "pause", finishing: [node] });

describe("EventWriter", () => {
  it("writes what every instance emitted in a macrotask in one statement, each instance's events in emission order", async () => {
    await using fx = await ClusterFixture.create();
    for (const id of ["a", "b"]) await fx.control.create({ graph: chainGraph(1), input: 1, instanceId: id });
    const db = openWorkerDatabase({ url: fx.url, workerId: "w1" });
    try {
      const leases = new LeaseStore(db.acks, "w1", 10_000);
      await leases.acquire("a");
      await leases.acquire("b");
      let statements = 0;
      const counted = { query: (config: pg.QueryConfig) => (statements++, db.steps.query(config)) };
      const writer = new EventWriter({ db: counted });
      writer.onEvent(status("a", 1));
      writer.onEvent(status("b", 1));
      writer.onEvent(drained("a", "x"));
      writer.onEvent(drained("b", "y"));
      writer.onEvent(drained("a", "z"));
      await writer.flush();
      expect(statements).toBe(1);
      const rows = await fx.query<{ instance_id: string; type: string; payload: { finishing?: string[] } }>(
        "SELECT instance_id, type, payload FROM engine_events ORDER BY id",
      );
      const of = (id: string) => rows.filter((r) => r.instance_id === id).map((r) => r.payload.finishing?.[0] ?? r.type);
      expect(of("a")).toEqual(["instance_status", "x", "z"]);
      expect(of("b")).toEqual(["instance_status", "y"]);
    } finally {
      await db.close();
    }
  });

  it("drops only the events of an instance whose lease the worker does not hold, not the others of the statement", async () => {
    await using fx = await ClusterFixture.create();
    for (const id of ["a", "b", "c"]) await fx.control.create({ graph: chainGraph(1), input: 1, instanceId: id });
    const db = openWorkerDatabase({ url: fx.url, workerId: "w1" });
    try {
      const leases = new LeaseStore(db.acks, "w1", 10_000);
      await leases.acquire("a");
      await leases.acquire("c");
      const writer = new EventWriter({ db: db.steps });
      for (const id of ["a", "b", "c"]) writer.onEvent(drained(id, "x"));
      await writer.flush();
      const rows = await fx.query<{ instance_id: string }>("SELECT instance_id FROM engine_events ORDER BY instance_id");
      expect(rows.map((r) => r.instance_id)).toEqual(["a", "c"]);
    } finally {
      await db.close();
    }
  });

  it("releases a run's lease in the statement that writes its last events, after them (the fence still sees it held)", async () => {
    await using fx = await ClusterFixture.create();
    for (const id of ["a", "b", "c"]) await fx.control.create({ graph: chainGraph(1), input: 1, instanceId: id });
    const db = openWorkerDatabase({ url: fx.url, workerId: "w1" });
    try {
      const leases = new LeaseStore(db.acks, "w1", 10_000);
      const a = (await leases.acquire("a"))!;
      const b = (await leases.acquire("b"))!;
      const names: string[] = [];
      const counted = { query: (config: pg.QueryConfig) => (names.push(config.name!), db.steps.query(config)) };
      const writer = new EventWriter({ db: counted, owner: "w1" });
      writer.onEvent(status("a", 1));
      writer.onEvent(drained("b", "y"));
      writer.onEvent(drained("c", "z")); // not held: refused, and the others are written again without it
      const released = await Promise.all([writer.forget("a", a), writer.forget("b", b)]);
      expect(released).toEqual([true, true]);
      expect(names).toEqual(["modex_cluster_events_release", "modex_cluster_events_release", "modex_cluster_events_release", "modex_cluster_events"]);
      const rows = await fx.query<{ instance_id: string }>("SELECT instance_id FROM engine_events ORDER BY instance_id");
      expect(rows.map((r) => r.instance_id)).toEqual(["a", "b"]);
      const held = await fx.query<{ instance_id: string; owner: string | null; expires_at: Date }>(
        "SELECT instance_id, owner, expires_at FROM cluster_leases WHERE instance_id IN ('a', 'b') ORDER BY instance_id",
      );
      // Released; both instances still run (nobody completed them here): due at once, as LeaseStore.release does.
      expect(held.map((r) => [r.instance_id, r.owner, r.expires_at.getTime() <= Date.now()])).toEqual([
        ["a", null, true],
        ["b", null, true],
      ]);
      // Nothing of the instance left to write: the caller releases.
      expect(await writer.forget("a", a)).toBe(false);
    } finally {
      await db.close();
    }
  });
});

