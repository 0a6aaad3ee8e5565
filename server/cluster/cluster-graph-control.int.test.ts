import { afterEach, describe, expect, it } from "vitest";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { InMemorySpecStore } from "@/server/services/spec-store";
import { SpecService } from "@/server/services/spec-service";
import { ServiceError } from "@/server/services/errors";
import { ClusterControl } from "./cluster-control";
import { ClusterGraphControl } from "./cluster-graph-control";
import { ClusterLauncher } from "./cluster-launcher";
import { specServiceCatalog } from "./spec-service-catalog";
import { ClusterWorker } from "./cluster-worker";
import { ClusterFixture } from "./testing/cluster-fixture";

/** Six 150 ms delays: long enough to pause, stop or deliver while a worker runs it. */
const PACED = `name: web-paced
nodes:
${[1, 2, 3, 4, 5, 6].map((i) => `  - { name: d${i}, node_type: delay, config: { ms: 150 } }`).join("\n")}
  - { name: last, node_type: function, config: { op: template, template: "done {{input}}" } }
edges:
  - { from: __start__, to: d1 }
${[1, 2, 3, 4, 5].map((i) => `  - { from: d${i}, to: d${i + 1} }`).join("\n")}
  - { from: d6, to: last }
  - { from: last, to: __end__ }
`;

/**
 * What a web process on PostgreSQL does to instances: every command commits its state change, its
 * event and its job together (PgAppDatabase), refuses what the single-process control plane refuses,
 * and a worker of the cluster does the work.
 */
describe("a web process's control plane on PostgreSQL", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function web() {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const db = PgAppDatabase.open({ url: fx.url, maxConnections: 4 });
    cleanup.push(() => db.close());
    const cluster = new ClusterControl({ db, dispatch: fx.dispatch });
    const specs = new SpecService(new InMemorySpecStore());
    await specs.save(PACED);
    const launcher = new ClusterLauncher({ db, cluster, specs });
    const control = new ClusterGraphControl({ db, cluster, drainWaitMs: 3_000 });
    const jobs = async (id: string) =>
      (await fx.query<{ kind: string }>("SELECT data->>'kind' AS kind FROM pgboss.job WHERE data->>'instanceId' = $1 ORDER BY created_on", [id])).map((r) => r.kind);
    /** A worker of the cluster, compiling the graphs the web process saved. */
    const worker = async () => {
      const w = await ClusterWorker.start({ url: fx.url, graphs: specServiceCatalog(specs), leaseMs: 1500 });
      cleanup.push(() => w.stop(1000));
      return w;
    };
    const output = async (id: string) =>
      (await fx.query<{ output: { content: unknown }[] | null }>("SELECT output FROM graph_io_records WHERE instance_id = $1 ORDER BY version", [id])).map((r) => r.output?.map((p) => p.content));
    return { fx, db, specs, launcher, control, jobs, worker, output };
  }

  it("a create commits the instance, its first event and its run job together, and nothing when the claim fails", async () => {
    const { fx, launcher, jobs } = await web();
    const ref = await launcher.create({ spec: "web-paced", input: "x" });
    expect(ref.status).toBe("running");
    expect(await jobs(ref.instanceId)).toEqual(["run"]);
    const events = await fx.query<{ type: string }>("SELECT type FROM engine_events WHERE instance_id = $1", [ref.instanceId]);
    expect(events.map((e) => e.type)).toEqual(["instance_status"]);

    const failing = launcher.create({
      spec: "web-paced",
      claim: () => {
        throw new Error("the key's row could not be written");
      },
    });
    await expect(failing).rejects.toThrow("could not be written");
    expect(await fx.countStatus("running")).toBe(1); // only the first
  }, 30_000);

  it("a worker runs what the web process creates; pause answers once the worker drained it, resume continues, each node once", async () => {
    const { fx, launcher, control, worker, output } = await web();
    await worker();
    const ref = await launcher.create({ spec: "web-paced", input: "x" });
    await fx.until(async () => (await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = $1 AND status = 'COMPLETED'", [ref.instanceId])).length >= 2, 10_000, "two nodes");
    const paused = await control.pause(ref.instanceId);
    expect(paused).toMatchObject({ command: "PAUSE_GRAPH", status: "paused", draining: false });
    expect((await control.pause(ref.instanceId)).status).toBe("paused"); // idempotent
    await expect(control.resume(ref.instanceId, {})).resolves.toMatchObject({ command: "RESUME_GRAPH" });
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 15_000, "completed");
    expect(await output(ref.instanceId)).toEqual([["done x"]]);
    const twice = await fx.query("SELECT node_name FROM node_invocations WHERE instance_id = $1 GROUP BY node_name HAVING count(*) > 1", [ref.instanceId]);
    expect(twice).toEqual([]);
  }, 60_000);

  it("stop ends a running instance; a paused one stops at once; a stopped one takes no deliver", async () => {
    const { fx, launcher, control, worker } = await web();
    await worker();
    const a = await launcher.create({ spec: "web-paced", input: "a" });
    await fx.until(async () => (await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = $1", [a.instanceId])).length >= 1, 10_000, "started");
    expect(await control.stop(a.instanceId)).toMatchObject({ status: "stopped" });
    const b = await launcher.create({ spec: "web-paced", input: "b" });
    await fx.until(async () => (await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = $1", [b.instanceId])).length >= 1, 10_000, "started");
    expect(await control.pause(b.instanceId)).toMatchObject({ status: "paused" });
    expect(await control.stop(b.instanceId)).toMatchObject({ status: "stopped" });
    const statusEvents = await fx.query<{ payload: { to: string } }>("SELECT payload FROM engine_events WHERE instance_id = $1 AND type = 'instance_status' ORDER BY id", [b.instanceId]);
    expect(statusEvents.map((e) => e.payload.to).at(-1)).toBe("stopped");
    await expect(control.deliver({ instanceId: b.instanceId, node: "last", content: 1 })).rejects.toMatchObject({ code: "INVALID_STATE" });
  }, 60_000);

  it("a reinvoke is accepted once until a worker starts its version: a second one is refused, as on one process, not dropped", async () => {
    const { fx, launcher, control, worker, output } = await web();
    const first = await worker();
    const ref = await launcher.create({ spec: "web-paced", input: "x" });
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 15_000, "version 1 completed");
    await first.stop(1000); // no worker: both reinvokes arrive before version 2 starts
    await control.reinvoke(ref.instanceId, "one");
    // The single process answers the same: version 2 runs, so it takes no new input.
    await expect(control.reinvoke(ref.instanceId, "two")).rejects.toMatchObject({ code: "INVALID_STATE" });
    await worker();
    await fx.until(async () => (await output(ref.instanceId)).length === 2 && (await fx.countStatus("completed")) === 1, 15_000, "version 2 completed");
    expect(await output(ref.instanceId)).toEqual([["done x"], ["done one"]]);
    // Once version 2 ran, new input is taken again.
    await control.reinvoke(ref.instanceId, "three");
    await fx.until(async () => (await output(ref.instanceId)).length === 3 && (await fx.countStatus("completed")) === 1, 15_000, "version 3 completed");
    expect((await output(ref.instanceId)).at(-1)).toEqual(["done three"]);
  }, 60_000);

  it("a deliver to a completed instance commits its row, its event and a deliver job together; refusals match the single-process plane", async () => {
    const { fx, launcher, control, worker, jobs } = await web();
    await expect(control.resume("404")).rejects.toMatchObject({ code: "NOT_FOUND" } satisfies Partial<ServiceError>);
    await worker();
    const ref = await launcher.create({ spec: "web-paced", input: "x" });
    await expect(control.answer(ref.instanceId, "y")).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(control.deliver({ instanceId: ref.instanceId, node: "nope", content: 1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(control.recover(ref.instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(control.delete(ref.instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 15_000, "completed");
    const delivered = await control.deliver({ instanceId: ref.instanceId, node: "last", content: "late" });
    expect(delivered).toMatchObject({ pickup: "new_run" });
    expect(await jobs(ref.instanceId)).toEqual(["run", "deliver"]);
    const rows = await fx.query<{ deliver_id: string }>("SELECT deliver_id FROM deliver_rows WHERE instance_id = $1 AND source_node = '__external__'", [ref.instanceId]);
    expect(rows.map((r) => r.deliver_id)).toEqual([delivered.deliverId]);
    const event = await fx.query("SELECT 1 FROM engine_events WHERE instance_id = $1 AND type = 'deliver_promoted' AND payload->>'source' = '__external__'", [ref.instanceId]);
    expect(event).toHaveLength(1);
  }, 60_000);
});
