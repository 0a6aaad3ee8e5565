import { describe, expect, it } from "vitest";
import type { ClusterWorker } from "./cluster-worker";
import type { ClusterFixture } from "./testing/cluster-fixture";
import { gateGraph } from "./testing/cluster-graphs";
import { ControlCluster } from "./testing/control-cluster";

/**
 * A stop on a cluster applies to the run it was sent for, as on a single process (where the resumed
 * run is already going when the stop comes): one sent after an answer was accepted and before the
 * resumed run is RUNNING is kept for that run, which first hands the answer to the waiting node, then
 * stops. A paused instance with nothing due stops at once.
 */
describe("stops racing with an accepted answer on a cluster", () => {
  it("a stop sent after an answer was accepted and before any worker took the job: the resumed run delivers the answer, then stops; nothing runs after", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, lease, resumeJobs } = c;
    const control = web();
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "s1" });
    await waitingAndReleased(c, w, "s1");
    await w.stop(1000); // nobody starts the resumed run yet

    await expect(control.answer("s1", "kept", "token")).resolves.toMatchObject({ command: "ANSWER" });
    // Truthful: still paused (no worker started the resumed run), and the stop is pending for it.
    await expect(control.stop("s1")).resolves.toMatchObject({ command: "STOP_GRAPH", status: "paused", draining: true });
    expect((await lease("s1")).requested).toBe("stop");

    await worker();
    await fx.until(async () => (await instance("s1")).status === "stopped" && (await lease("s1")).owner === null, 10_000, "the resumed run stopped and settled");
    await expectAnswerDeliveredThenStopped(fx, "s1", "kept");
    expect((await instance("s1")).attrs.answers).toHaveLength(1);
    expect(await resumeJobs("s1")).toBe(1);
    expect(await resumedRuns(fx, "s1")).toBe(1);
    // Terminal, as on one process.
    await expect(control.resume("s1")).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(control.stop("s1")).resolves.toMatchObject({ status: "stopped" });
  }, 60_000);

  it("a stop that reaches the instance after a worker cleared resume_due and before the run moved it to RUNNING stops that run once the answer is delivered", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, lease, resumeJobs } = c;
    const control = web({ drainWaitMs: 15_000 });
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "s2" });
    await waitingAndReleased(c, w, "s2");

    // The window, held open: the resumed run restores its state between the save that clears
    // resume_due and the transition to RUNNING (InstanceRun.execute). Its first restore of "s2" waits.
    const gate = openGate();
    const reached = openGate();
    const instances = w.coordinator.instances;
    const loadState = instances.loadState.bind(instances);
    let held = false;
    instances.loadState = async (id) => {
      if (id === "s2" && !held) {
        held = true;
        reached.open();
        await gate.opened;
      }
      return loadState(id);
    };

    await control.answer("s2", "in the window", "token");
    await reached.opened;
    const inWindow = await instance("s2");
    expect(inWindow.status).toBe("paused");
    expect(inWindow.attrs.resume_due ?? null).toBeNull();
    expect((await lease("s2")).owner).toBe(w.workerId);

    const stopping = control.stop("s2");
    // Stored for the run (not a stop of the paused instance at once), and seen by the worker holding it.
    await fx.until(async () => (await lease("s2")).requested === "stop" && w.requestOf("s2") === "stop", 10_000, "the stop reached the worker");
    expect((await instance("s2")).status).toBe("paused");
    gate.open();

    await expect(stopping).resolves.toMatchObject({ command: "STOP_GRAPH", status: "stopped", draining: false });
    await fx.until(async () => (await lease("s2")).owner === null, 10_000, "released");
    await expectAnswerDeliveredThenStopped(fx, "s2", "in the window");
    expect(await resumeJobs("s2")).toBe(1);
    expect(await resumedRuns(fx, "s2")).toBe(1);
  }, 60_000);

  it("a stop of a paused instance with nothing due and its lease free stops it at once", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, lease } = c;
    const control = web();
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "s3" });
    await waitingAndReleased(c, w, "s3");
    await w.stop(1000); // no worker could stop it: the web process does

    await expect(control.stop("s3")).resolves.toMatchObject({ command: "STOP_GRAPH", status: "stopped" });
    expect((await instance("s3")).status).toBe("stopped");
    expect((await lease("s3")).requested).toBeNull();
    const events = await fx.query<{ payload: { from: string; to: string } }>("SELECT payload FROM engine_events WHERE instance_id = 's3' AND type = 'instance_status' ORDER BY id DESC LIMIT 1");
    expect(events[0].payload).toMatchObject({ from: "paused", to: "stopped" });
    await expect(control.answer("s3", "late", "token")).rejects.toMatchObject({ code: "INVALID_STATE" });
  }, 30_000);

  it("a stop that finds the paused instance's lease still held by the worker that paused it (settling, nothing due) ends it stopped once that worker let go", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, instance, lease } = c;
    const control = web({ drainWaitMs: 5_000 });
    // No worker runs; the test plays the one that paused the run and still holds its lease.
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "s4" });
    await fx.query(`UPDATE graph_instances SET status = 'paused', attrs = attrs || '{"waiting_for": {"question": "approve?"}}' WHERE instance_id = 's4'`);
    await fx.query("UPDATE cluster_leases SET owner = 'w-settling', epoch = 1, expires_at = now() + interval '10 seconds' WHERE instance_id = 's4'");
    const stopping = control.stop("s4");
    await fx.until(async () => (await lease("s4")).requested === "stop", 5_000, "the stop stored for the run holding the lease");
    // That run is over (it paused): its release drops the request, as LeaseStore.release does.
    await fx.query("UPDATE cluster_leases SET owner = NULL, requested = NULL, expires_at = 'infinity' WHERE instance_id = 's4'");
    await expect(stopping).resolves.toMatchObject({ command: "STOP_GRAPH", status: "stopped" });
    expect((await instance("s4")).status).toBe("stopped");
  }, 30_000);
});

async function waitingAndReleased(c: ControlCluster, w: ClusterWorker, id: string): Promise<void> {
  await c.fx.until(async () => (await c.instance(id))?.attrs.waiting_for != null && w.running.length === 0 && (await c.lease(id)).owner === null, 10_000, "waiting, released");
}

/**
 * STOPPED with the answer handed to the waiting node (a ledger row from START to `gate` carrying it)
 * and nothing after it run: `gate` ran once (the interrupt), `after` never.
 */
async function expectAnswerDeliveredThenStopped(fx: ClusterFixture, id: string, answer: string): Promise<void> {
  const rows = await fx.query<{ content: unknown }>("SELECT content FROM deliver_rows WHERE instance_id = $1 AND source_node = '__start__' AND target_node = 'gate'", [id]);
  expect(rows.map((r) => r.content)).toContainEqual(expect.objectContaining({ value: answer }));
  const ran = await fx.query<{ node_name: string; n: number }>("SELECT node_name, count(*)::int AS n FROM node_invocations WHERE instance_id = $1 GROUP BY node_name", [id]);
  const counts = Object.fromEntries(ran.map((r) => [r.node_name, r.n]));
  expect(counts.gate).toBe(1);
  expect(counts.after).toBeUndefined();
  const status = await fx.query<{ status: string; waiting: unknown }>("SELECT status, attrs->'waiting_for' AS waiting FROM graph_instances WHERE instance_id = $1 AND is_latest", [id]);
  expect(status[0].status).toBe("stopped");
  expect(status[0].waiting ?? null).toBeNull(); // nothing waits for a human: the answer was delivered
}

/** Runs started after the first (the resumed runs), by their `run_started` events. */
async function resumedRuns(fx: ClusterFixture, id: string): Promise<number> {
  const rows = await fx.query<{ n: number }>("SELECT count(*)::int AS n FROM engine_events WHERE instance_id = $1 AND type = 'run_started'", [id]);
  return rows[0].n - 1;
}

function openGate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}
