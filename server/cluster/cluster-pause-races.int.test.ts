import { describe, expect, it } from "vitest";
import { END } from "@/server/graph/names";
import { chainGraph, gateGraph } from "./testing/cluster-graphs";
import { ControlCluster } from "./testing/control-cluster";

/**
 * A pause (or stop) on a cluster applies to the run it was sent for, as on a single process: one sent
 * after an answer was accepted and before a worker started the resumed run pauses that run once the
 * answer is delivered (the answer is kept); one that loses the race with the run's end is refused as
 * a pause of an ended instance is, and never reaches the instance's next run.
 */
describe("pauses racing with resumes and run ends on a cluster", () => {
  it("a pause sent after an answer was accepted and before any worker started the run is kept: the run delivers the answer, then pauses; a resume completes with it", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, lease, output } = c;
    const control = web();
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "g1" });
    await fx.until(async () => (await instance("g1"))?.attrs.waiting_for != null && w.running.length === 0, 10_000, "waiting, released");
    await w.stop(1000); // nobody starts the resumed run yet

    await expect(control.answer("g1", "kept", "token")).resolves.toMatchObject({ command: "ANSWER" });
    // Truthful: still paused (no worker started the resumed run), and the pause is pending for it.
    await expect(control.pause("g1")).resolves.toMatchObject({ command: "PAUSE_GRAPH", status: "paused", draining: true });

    await worker();
    await fx.until(async () => (await instance("g1")).attrs.resume_due == null && (await lease("g1")).owner === null, 10_000, "the resumed run ran and settled");
    const settled = await instance("g1");
    expect(settled.status).toBe("paused");
    expect(settled.attrs.answers).toHaveLength(1);
    expect(settled.attrs.waiting_for ?? null).toBeNull(); // the answer was delivered: nothing waits for a human
    expect(await fx.query("SELECT 1 FROM node_invocations i JOIN graph_instances g USING (instance_id) WHERE g.instance_id = 'g1' AND i.node_name = 'after'")).toEqual([]);

    await control.resume("g1");
    await fx.until(async () => (await instance("g1")).status === "completed", 15_000, "completed");
    expect(await output("g1")).toEqual(["after:kept"]);
  }, 60_000);

  it("a pause sent right after an answer while a worker is up answers what happened: the resumed run pauses after the answer or has completed; the answer is delivered once", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, output } = c;
    const control = web();
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "g2" });
    await fx.until(async () => (await instance("g2"))?.attrs.waiting_for != null && w.running.length === 0, 10_000, "waiting, released");

    // The answer's reply waits for the worker's start (running, or completed if it ended already; queued past
    // its wait), so the pause that follows races the resumed run's end: it pauses the run after the answer,
    // or finds it completed (409).
    const answered = await control.answer("g2", "fast", "token");
    expect(["running", "completed", "queued"]).toContain(answered.status);
    const reply: unknown = await control.pause("g2").then((r) => r, (error: unknown) => error);
    await fx.until(async () => (await instance("g2")).attrs.resume_due == null && w.running.length === 0, 10_000, "the resumed run settled");
    if (reply instanceof Error) {
      expect(reply).toMatchObject({ code: "INVALID_STATE" });
      expect((await instance("g2")).status).toBe("completed");
    } else {
      expect(reply).toMatchObject({ command: "PAUSE_GRAPH" });
      if ((await instance("g2")).status === "paused") await control.resume("g2");
    }
    await fx.until(async () => (await instance("g2")).status === "completed", 15_000, "completed");
    expect((await instance("g2")).attrs.answers).toHaveLength(1);
    expect(await output("g2")).toEqual(["after:fast"]);
  }, 60_000);

  it("a pause racing with the run's end answers what happened (completed, or refused once the run is over) and never reaches the instance's next run", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, lease, output } = c;
    const control = web();
    let pausing: Promise<unknown> | null = null;
    await worker({
      observer: {
        onEvent: (e) => {
          // The run has passed its last safe point: the pause is stored before its final status commits
          // (the reply then names the run's end) or finds it ended (409); either way it never pauses it.
          if (e.type === "run_finished" && !pausing) pausing = control.pause(e.instanceId).then((r) => r, (error: unknown) => error);
        },
      },
    });
    await fx.control.create({ graph: chainGraph(3, 20), input: "one", instanceId: "c1" });
    await fx.until(async () => pausing !== null && (await instance("c1"))?.status === "completed" && (await lease("c1")).owner === null, 10_000, "completed");
    // Stored while the run still ran (its reply names the run's end), or refused as on a single process.
    const reply: unknown = await pausing;
    if (reply instanceof Error) expect(reply).toMatchObject({ code: "INVALID_STATE" });
    else expect(reply).toMatchObject({ command: "PAUSE_GRAPH", status: "completed", draining: false });
    expect((await lease("c1")).requested).toBeNull();
    await expect(control.pause("c1")).rejects.toMatchObject({ code: "INVALID_STATE" }); // after the end: 409

    await control.reinvoke("c1", "two");
    await fx.until(async () => (await instance("c1")).version === 2 && (await instance("c1")).status !== "running", 10_000, "version 2 ran");
    expect((await instance("c1")).status).toBe("completed");
    expect(await output("c1")).toEqual(["two"]);
  }, 60_000);

  it("pauses sent as runs end never deadlock with a run's last commit: each reply names the instance's end state or is a 409, and no next run starts paused", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance } = c;
    const control = web();
    const replies = new Map<string, Promise<unknown>>();
    await worker({
      observer: {
        onEvent: (e) => {
          if (e.type === "node_started" && e.node === END && !replies.has(e.instanceId)) {
            replies.set(e.instanceId, control.pause(e.instanceId).then((r) => r, (error: unknown) => error));
          }
        },
      },
    });
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);
    for (const id of ids) await fx.control.create({ graph: chainGraph(2, 0), input: id, instanceId: id });
    await fx.until(async () => replies.size === ids.length && (await fx.countStatus("running")) === 0, 15_000, "all ended");
    expect(await fx.countStatus("failed")).toBe(0);
    for (const id of ids) {
      const reply = (await replies.get(id)) as { status?: string; code?: string };
      const now = (await instance(id)).status;
      if (reply.code !== undefined) expect(reply.code).toBe("INVALID_STATE");
      else expect(reply.status).toBe(now);
    }
    const completed: string[] = [];
    for (const id of ids) if ((await instance(id)).status === "completed") completed.push(id);
    for (const id of completed) await control.reinvoke(id, "again");
    await fx.until(async () => {
      for (const id of completed) if ((await instance(id)).version !== 2 || (await instance(id)).status === "running") return false;
      return true;
    }, 15_000, "reinvoked runs ended");
    for (const id of completed) expect((await instance(id)).status).toBe("completed");
  }, 60_000);
});
