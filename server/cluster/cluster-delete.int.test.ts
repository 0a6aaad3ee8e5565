import { afterEach, describe, expect, it } from "vitest";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgInstanceArchive } from "@/server/services/pg-instance-archive";
import { ClusterControl } from "./cluster-control";
import { ClusterGraphControl } from "./cluster-graph-control";
import { ClusterWorker } from "./cluster-worker";
import { ClusterFixture } from "./testing/cluster-fixture";
import { gateGraph, testGraphCatalog } from "./testing/cluster-graphs";

/** Deleting an instance on a cluster leaves none of its rows: not its lease, not a job waiting for a worker. */
describe("deleting an instance on a cluster", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function cluster() {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const db = PgAppDatabase.open({ url: fx.url, maxConnections: 4 });
    cleanup.push(() => db.close());
    const control = new ClusterGraphControl({ db, cluster: new ClusterControl({ db, dispatch: fx.dispatch }), archive: new PgInstanceArchive(db) });
    const worker = async () => {
      const w = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 2000 });
      cleanup.push(() => w.stop(1000));
      return w;
    };
    const count = async (sql: string, id: string) => (await fx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, [id]))[0].n;
    const jobs = (id: string) => count("pgboss.job WHERE data->>'instanceId' = $1 AND state IN ('created', 'retry')", id);
    const leases = (id: string) => count("cluster_leases WHERE instance_id = $1", id);
    return { fx, control, worker, jobs, leases, count };
  }

  it("deletes the lease and the pending resume job with the instance, in one transaction", async () => {
    const { fx, control, worker, jobs, leases, count } = await cluster();
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "d1" });
    await fx.until(async () => (await fx.countStatus("paused")) === 1 && w.running.length === 0, 10_000, "paused, released");
    await w.stop(1000);
    await control.answer("d1", "yes", "token"); // its resume job waits: no worker runs
    expect(await jobs("d1")).toBe(1);
    expect(await leases("d1")).toBe(1);

    await expect(control.delete("d1")).resolves.toEqual({ instanceId: "d1", deleted: true });
    expect(await jobs("d1")).toBe(0);
    expect(await leases("d1")).toBe(0);
    for (const table of ["graph_instances", "node_invocations", "deliver_rows", "engine_events", "graph_io_records"]) {
      expect(await count(`${table} WHERE instance_id = $1`, "d1")).toBe(0);
    }
    // A worker started now has nothing of it to do and creates nothing for it.
    await worker();
    await new Promise((r) => setTimeout(r, 1200));
    expect(await leases("d1")).toBe(0);
  }, 60_000);

  it("a job a worker fetched for an instance deleted meanwhile leaves no lease behind", async () => {
    const { fx, worker, leases } = await cluster();
    await fx.dispatch.enqueueIn(fx.pool, { instanceId: "ghost", kind: "resume" });
    const w = await worker();
    await fx.until(async () => w.stats.finished >= 1, 10_000, "the job taken");
    await fx.until(async () => (await leases("ghost")) === 0, 2_000, "no lease of a deleted instance");
  }, 60_000);
});
