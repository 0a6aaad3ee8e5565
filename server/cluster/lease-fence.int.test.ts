import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterWorker } from "./cluster-worker";
import { isLeaseLost } from "./cluster-errors";
import { FencedCoordinator } from "./fenced-coordinator";
import { LeaseStore } from "./lease-store";
import { sweepOnce } from "./sweeper";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph, testGraphCatalog } from "./testing/cluster-graphs";
import { openWorkerDatabase } from "./worker-database";

describe("leases fence a worker's writes", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  const fixture = async () => {
    const fx = await ClusterFixture.create({ graceMs: 300 });
    cleanup.push(() => fx[Symbol.asyncDispose]());
    return fx;
  };
  const workerDb = (fx: ClusterFixture, workerId: string) => {
    const db = openWorkerDatabase({ url: fx.url, workerId });
    cleanup.push(() => db.close());
    return { db, coordinator: new FencedCoordinator(db), leases: new LeaseStore(db.acks, workerId, 300) };
  };

  it("acquire only if free, expired or ours (epoch + 1 each time); renew and release only the same epoch", async () => {
    const fx = await fixture();
    await fx.control.create({ graph: chainGraph(2), input: 1, instanceId: "i1" });
    const a = workerDb(fx, "wa");
    const b = workerDb(fx, "wb");
    const first = await a.leases.acquire("i1");
    expect(first?.epoch).toBe(1);
    expect(await b.leases.acquire("i1")).toBeNull(); // held and not expired
    expect((await a.leases.renew([first!])).map((r) => r.instanceId)).toEqual(["i1"]);
    await new Promise((r) => setTimeout(r, 350)); // expired (no heartbeat)
    const taken = await b.leases.acquire("i1");
    expect(taken?.epoch).toBe(2);
    expect(await a.leases.renew([first!])).toEqual([]); // lost: another owner
    expect(await a.leases.release(first!)).toBe(false);
    expect(await b.leases.release(taken!)).toBe(true);
    expect((await a.leases.acquire("i1"))?.epoch).toBe(3); // free again
  });

  it("refuses every kind of engine write of an instance whose lease the worker lost (MX002), and lets the holder write", async () => {
    const fx = await fixture();
    await fx.control.create({ graph: chainGraph(2), input: 1, instanceId: "i2" });
    const a = workerDb(fx, "wa");
    const b = workerDb(fx, "wb");
    // A worker's state save is held for the run's next status change (holdRunWrites): written here at once.
    const saveState = (w: typeof a, state: unknown) => (w.coordinator.instances.saveState("i2", state), w.coordinator.instances.writeHeld("i2"));
    // Without a lease nothing is written.
    await expect(saveState(a, { x: 1 })).rejects.toSatisfy(isLeaseLost);
    await a.leases.acquire("i2");
    await saveState(a, { x: 1 });
    const opened = await a.coordinator.openInvocation({ instanceId: "i2", nodeId: "n", nodeName: "n0" });
    await new Promise((r) => setTimeout(r, 350));
    await b.leases.acquire("i2"); // takeover after expiry
    const writes: [string, () => Promise<unknown>][] = [
      ["state", () => saveState(a, { x: 2 })],
      ["status", () => a.coordinator.instances.transition("i2", "paused")],
      ["status with the state", () => (a.coordinator.instances.saveState("i2", { x: 2 }), a.coordinator.instances.transition("i2", "paused"))],
      ["attrs", () => a.coordinator.instances.updateAttrs("i2", { y: 1 })],
      ["node begin", () => a.coordinator.openInvocation({ instanceId: "i2", nodeId: "m", nodeName: "n1" })],
      ["node complete", async () => (await a.coordinator.completeInvocation(opened.invocation, [], { z: 1 }), a.coordinator.flush())],
      ["node fail", () => a.coordinator.nodes.fail(opened.invocation.invocationId, "x")],
      ["event", () => a.db.steps.query({ text: `INSERT INTO engine_events (instance_id, version, type, payload, created_at) VALUES ('i2', 1, 'x', '{}', now())` })],
    ];
    for (const [what, write] of writes) await expect(write(), what).rejects.toSatisfy(isLeaseLost);
    const { rows } = await fx.pool.query("SELECT state::text, status, attrs::text FROM graph_instances WHERE instance_id = 'i2'");
    expect(rows[0]).toEqual({ state: '{"x":1}', status: "running", attrs: "{}" });
    // The new holder writes.
    await saveState(b, { x: 3 });
  });

  it("a takeover waits for the old holder's write in flight, then fences it (the lease row is read FOR SHARE)", async () => {
    const fx = await fixture();
    await fx.control.create({ graph: chainGraph(2), input: 1, instanceId: "i3" });
    const a = workerDb(fx, "wa");
    const b = workerDb(fx, "wb");
    await a.leases.acquire("i3");
    await new Promise((r) => setTimeout(r, 350));
    const client = await (a.db.acks as pg.Pool).connect();
    cleanup.push(async () => client.release());
    await client.query("BEGIN");
    await client.query("UPDATE graph_instances SET state = '{\"old\":1}' WHERE instance_id = 'i3'"); // holds the share lock
    let tookOver = false;
    const takeover = b.leases.acquire("i3").then((l) => ((tookOver = true), l));
    await new Promise((r) => setTimeout(r, 200));
    expect(tookOver).toBe(false);
    await client.query("COMMIT");
    expect((await takeover)?.epoch).toBe(2);
    await expect(client.query("UPDATE graph_instances SET state = '{\"old\":2}' WHERE instance_id = 'i3'")).rejects.toSatisfy(isLeaseLost);
  });

  it("a worker whose heartbeat stops (its connection gone longer than the lease) loses the run to another worker, and the two never both write", async () => {
    const fx = await fixture();
    const lease = 600;
    const a = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: lease, sweepMs: 200 });
    cleanup.push(() => a.stop(1000));
    const graph = chainGraph(30, 40);
    await fx.control.create({ graph, input: "x", instanceId: "i4" });
    await fx.until(async () => a.running.includes("i4"), 10_000, "a runs i4");
    await fx.until(async () => (await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = 'i4' AND status = 'COMPLETED'")).length >= 4, 10_000, "a few nodes done");
    a.suspendHeartbeat(60_000);
    // Cut its connections too, as a network drop would (the pools reconnect on next use).
    await fx.pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [`modex-worker-${a.workerId}`]);
    const b = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: lease, sweepMs: 200 });
    cleanup.push(() => b.stop(1000));
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 30_000, "i4 completed on b");
    await fx.until(async () => a.running.length === 0, 10_000, "a abandoned its run");
    // a's run ended (abandoned at its first write after the cut: a lost connection or a refused write).
    expect(a.stats.finished).toBe(1);
    expect(b.stats.started).toBeGreaterThanOrEqual(1);
    // Never both: each node completed exactly once, the chain's output is its input.
    const twice = await fx.query("SELECT node_name FROM node_invocations WHERE instance_id = 'i4' AND status = 'COMPLETED' GROUP BY node_name HAVING count(*) > 1");
    expect(twice).toEqual([]);
    const completed = await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = 'i4' AND status = 'COMPLETED'");
    expect(completed).toHaveLength(32); // __start__, n0..n29, __end__
    const io = await fx.query<{ output: unknown }>("SELECT output FROM graph_io_records WHERE instance_id = 'i4'");
    expect(io[0].output).toEqual([expect.objectContaining({ content: "x" })]);
    // The takeover's CRASHED is in the event log, as the single process's sweeper records it: the
    // timeline shows the run crash before it shows it recovered.
    const statuses = await fx.query<{ payload: { from: string | null; to: string } }>(
      "SELECT payload FROM engine_events WHERE instance_id = 'i4' AND type = 'instance_status' ORDER BY id",
    );
    const moves = statuses.map((s) => `${s.payload.from} → ${s.payload.to}`);
    expect(moves.indexOf("running → crashed")).toBeGreaterThan(-1);
    expect(moves.indexOf("crashed → running")).toBe(moves.indexOf("running → crashed") + 1);
  }, 60_000);
});
