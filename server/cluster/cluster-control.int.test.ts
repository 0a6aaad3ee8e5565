import { afterEach, describe, expect, it } from "vitest";
import { ClusterWorker } from "./cluster-worker";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph, gateGraph, testGraphCatalog } from "./testing/cluster-graphs";

/** Control sent from another process (the fixture's pool: what a web process has) to a worker's run. */
describe("control reaches the worker that runs an instance", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  const fixture = async () => {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    return fx;
  };
  const start = async (fx: ClusterFixture) => {
    const w = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 1500 });
    cleanup.push(() => w.stop(1000));
    return w;
  };
  const completedNodes = async (fx: ClusterFixture, id: string) =>
    (await fx.query<{ n: number }>("SELECT count(*)::int AS n FROM node_invocations WHERE instance_id = $1 AND status = 'COMPLETED'", [id]))[0].n;

  it("pause is honoured at the next safe point; the paused instance resumes on another worker and completes, each node once", async () => {
    const fx = await fixture();
    const a = await start(fx);
    const graph = chainGraph(30, 30);
    await fx.control.create({ graph, input: "p", instanceId: "p1" });
    await fx.until(async () => (await completedNodes(fx, "p1")) >= 3, 10_000, "a few nodes");
    const asked = Date.now();
    await fx.control.request("p1", "pause");
    await fx.until(async () => (await fx.countStatus("paused")) === 1, 5_000, "paused");
    const pausedAfter = Date.now() - asked;
    await fx.until(async () => a.running.length === 0, 5_000, "a released it");
    const atPause = await completedNodes(fx, "p1");
    expect(atPause).toBeLessThan(32);
    await a.stop(1000);
    const b = await start(fx);
    await fx.control.resume("p1");
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 20_000, "completed on b");
    expect(b.stats.started).toBe(1);
    const twice = await fx.query("SELECT node_name FROM node_invocations WHERE instance_id = 'p1' AND status = 'COMPLETED' GROUP BY node_name HAVING count(*) > 1");
    expect(twice).toEqual([]);
    expect(await completedNodes(fx, "p1")).toBe(32);
    console.log(`pause honoured ${pausedAfter} ms after the request`);
    expect(pausedAfter).toBeLessThan(2000); // a node takes 30 ms; the notification, not the heartbeat, carried it
  }, 60_000);

  it("a deliver sent while another process runs the instance wakes it: the target consumes the external row", async () => {
    const fx = await fixture();
    await start(fx);
    const graph = chainGraph(20, 30);
    await fx.control.create({ graph, input: "d", instanceId: "d1" });
    await fx.until(async () => (await completedNodes(fx, "d1")) >= 3, 10_000, "a few nodes");
    await fx.control.deliver({ instanceId: "d1", node: "n15", content: "from outside" });
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 20_000, "completed");
    const rows = await fx.query<{ status: string }>("SELECT status FROM deliver_rows WHERE instance_id = 'd1' AND source_node = '__external__'");
    expect(rows).toEqual([{ status: "CONSUMED_COMPLETED" }]);
  }, 60_000);

  it("a deliver to a paused instance waits for the resume, which consumes it", async () => {
    const fx = await fixture();
    await start(fx);
    const graph = chainGraph(20, 30);
    await fx.control.create({ graph, input: "q", instanceId: "q1" });
    await fx.until(async () => (await completedNodes(fx, "q1")) >= 2, 10_000, "a few nodes");
    await fx.control.request("q1", "pause");
    await fx.until(async () => (await fx.countStatus("paused")) === 1, 5_000, "paused");
    await fx.control.deliver({ instanceId: "q1", node: "n18", content: "later" });
    await new Promise((r) => setTimeout(r, 700));
    expect(await fx.countStatus("paused")).toBe(1);
    await fx.control.resume("q1");
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 20_000, "completed");
    const rows = await fx.query<{ status: string }>("SELECT status FROM deliver_rows WHERE instance_id = 'q1' AND source_node = '__external__'");
    expect(rows).toEqual([{ status: "CONSUMED_COMPLETED" }]);
  }, 60_000);

  it("an answer to an interrupted instance resumes it at the interrupting node with the value, on another worker", async () => {
    const fx = await fixture();
    const a = await start(fx);
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "g1" });
    await fx.until(async () => (await fx.countStatus("paused")) === 1, 10_000, "interrupted");
    await fx.until(async () => a.running.length === 0, 5_000, "a released it");
    await a.stop(1000);
    const b = await start(fx);
    await fx.control.answer("g1", "yes");
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 10_000, "completed");
    expect(b.stats.started).toBe(1);
    const io = await fx.query<{ output: { content: unknown }[] }>("SELECT output FROM graph_io_records WHERE instance_id = 'g1'");
    expect(io[0].output.map((p) => p.content)).toEqual(["after:yes"]);
    const before = await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = 'g1' AND node_name = 'before'");
    expect(before).toHaveLength(1); // nothing before the gate ran again
  }, 60_000);
});
