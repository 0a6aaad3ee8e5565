import { afterEach, describe, expect, it } from "vitest";
import { ClusterWorker } from "./cluster-worker";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph, fanOutGraph, testGraphCatalog } from "./testing/cluster-graphs";

describe("cluster workers on PostgreSQL", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it("runs instances created with their job in one transaction, each to completion once, and releases the leases", async () => {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const workers = await Promise.all([0, 1].map(() => ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 2000 })));
    cleanup.push(() => Promise.all(workers.map((w) => w.stop())).then(() => undefined));
    const graph = fanOutGraph(4);
    const inputs = Array.from({ length: 20 }, (_, i) => ({ instanceId: `c${i}`, input: i }));
    await fx.control.createMany({ graph, inputs });
    await fx.until(async () => (await fx.countStatus("completed")) === 20, 30_000, "20 completed");
    // A run's last events are stored just after its final status, before its lease is released.
    await fx.until(() => fx.idle(), 5000, "leases released");
    const finished = await fx.query<{ instance_id: string; n: number }>(
      "SELECT instance_id, count(*)::int AS n FROM engine_events WHERE type = 'run_finished' GROUP BY instance_id",
    );
    expect(finished).toHaveLength(20);
    expect(finished.every((r) => r.n === 1)).toBe(true);
    expect(workers[0].stats.started + workers[1].stats.started).toBe(20);
  }, 60_000);

  it("a worker with one connection per engine pool (MODEX_WORKER_CONNECTIONS=1) runs many instances at once to completion", async () => {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const worker = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 2000, concurrency: 16, connections: 1 });
    cleanup.push(() => worker.stop());
    const inputs = Array.from({ length: 40 }, (_, i) => ({ instanceId: `one${i}`, input: i }));
    await fx.control.createMany({ graph: chainGraph(5), inputs });
    await fx.until(async () => (await fx.countStatus("completed")) === 40, 30_000, "40 completed");
    await fx.until(() => fx.idle(), 5000, "leases released");
    const connections = await fx.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'modex-worker%'");
    expect(connections[0].n).toBeLessThanOrEqual(2);
  }, 60_000);

  it("a worker stopping gracefully keeps its leases while its runs finish: a run longer than the lease ends on it, no other worker recovers it", async () => {
    const fx = await ClusterFixture.create({ graceMs: 600 });
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const leaseMs = 600;
    const stopping = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs });
    cleanup.push(() => stopping.stop());
    // Three nodes of 700 ms each: the run outlasts the lease three times over.
    await fx.control.createMany({ graph: chainGraph(3, 700), inputs: [{ instanceId: "long", input: "x" }] });
    await fx.until(async () => stopping.running.includes("long"), 10_000, "the run started");
    const other = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs, sweepMs: 100 });
    cleanup.push(() => other.stop());
    await stopping.stop(10_000);
    expect(await fx.countStatus("completed")).toBe(1);
    expect(stopping.stats).toMatchObject({ started: 1, finished: 1, lost: 0 });
    expect(other.stats.started).toBe(0);
    const started = await fx.query("SELECT 1 FROM engine_events WHERE instance_id = 'long' AND type = 'run_started'");
    expect(started).toHaveLength(1);
  }, 60_000);

  it("a worker stopping while it takes a job (its lease being acquired) runs that job to its end before it closes, or leaves it: never a lease held by a closed worker", async () => {
    const fx = await ClusterFixture.create({ graceMs: 600 });
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const worker = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 2000 });
    cleanup.push(() => worker.stop());
    // The acquisition of the job's lease waits until stop was called.
    const acquire = worker.leases.acquire.bind(worker.leases);
    let taking: () => void = () => {};
    const taken = new Promise<void>((r) => (taking = r));
    let go: () => void = () => {};
    const stopCalled = new Promise<void>((r) => (go = r));
    worker.leases.acquire = async (id) => (taking(), await stopCalled, acquire(id));
    await fx.control.createMany({ graph: chainGraph(2, 100), inputs: [{ instanceId: "taken", input: "x" }] });
    await taken;
    const stopped = worker.stop(10_000);
    go();
    await stopped;
    // Stopped: whatever it took is over, its lease free (not held until it expires).
    expect(await fx.countStatus("completed")).toBe(1);
    expect(await fx.query("SELECT owner FROM cluster_leases WHERE instance_id = 'taken' AND owner IS NOT NULL")).toEqual([]);
  }, 60_000);
});
