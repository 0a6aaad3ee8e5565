import { describe, expect, it } from "vitest";
import { chainGraph, gateGraph } from "./testing/cluster-graphs";
import { ControlCluster } from "./testing/control-cluster";

/**
 * Answers, resumes and decisions sent to a cluster at the same moment, from several web processes:
 * each is checked under the instance's row lock in the transaction that enqueues its resume, so one
 * wins and the others get the single process's INVALID_STATE; and an answer sent the moment the pause
 * shows finds what the run waits for.
 */
describe("concurrent answers and resumes on a cluster", () => {
  it("of eight answers sent at once through two web processes exactly one is accepted, with one resume job", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, resumeJobs, instance, output } = c;
    const [a, b] = [web(), web()];
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "g1" });
    await fx.until(async () => (await instance("g1"))?.attrs.waiting_for != null && w.running.length === 0, 10_000, "waiting, released");
    await w.stop(1000); // nothing starts the resume while the answers race

    const sent = Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).answer("g1", `v${i}`, "token"));
    const settled = await Promise.allSettled(sent);
    const accepted = settled.flatMap((s, i) => (s.status === "fulfilled" ? [`v${i}`] : []));
    expect(accepted).toHaveLength(1);
    for (const s of settled) if (s.status === "rejected") expect(s.reason).toMatchObject({ code: "INVALID_STATE" });
    expect(await resumeJobs("g1")).toBe(1);
    expect((await instance("g1")).attrs.answers).toHaveLength(1);
    // A plain resume or a later answer while that resume waits for a worker: refused too.
    await expect(a.resume("g1")).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(b.answer("g1", "late")).rejects.toMatchObject({ code: "INVALID_STATE" });

    await worker();
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 15_000, "completed");
    expect(await output("g1")).toEqual([`after:${accepted[0]}`]);
    expect((await instance("g1")).attrs.resume_due).toBeNull(); // cleared by the run's start
  }, 60_000);

  it("of six approve/deny decisions on one tool call sent at once through two web processes, exactly one is accepted", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, resumeJobs, instance } = c;
    const [a, b] = [web(), web()];
    // An instance waiting for an agent's tool approval, as a worker leaves it (no worker runs here).
    const waiting = { kind: "agent_approval", node: "agent", prompt: "run deploy?", transactionId: "tx1", turnId: "t1", tool: "deploy", args: {}, reasoning: "", requestedAt: 1, context: [] };
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "a1" });
    await fx.query("UPDATE graph_instances SET status = 'paused', attrs = attrs || jsonb_build_object('waiting_for', $1::jsonb) WHERE instance_id = 'a1'", [JSON.stringify(waiting)]);
    await fx.query("UPDATE cluster_leases SET owner = NULL, expires_at = 'infinity' WHERE instance_id = 'a1'");
    const settled = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).decide({ instanceId: "a1", approved: i % 3 !== 0, transactionId: "tx1", by: "token" })),
    );
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    for (const s of settled) if (s.status === "rejected") expect(s.reason).toMatchObject({ code: "INVALID_STATE" });
    expect(await resumeJobs("a1")).toBe(1);
    expect((await instance("a1")).attrs.agent_approvals).toHaveLength(1);
  }, 30_000);

  it("of six resumes of a drained instance sent at once, exactly one is accepted", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, resumeJobs } = c;
    const [a, b] = [web(), web()];
    const w = await worker();
    await fx.control.create({ graph: chainGraph(40, 100), input: "r", instanceId: "r1" });
    await fx.until(async () => (await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = 'r1'")).length >= 2, 10_000, "started");
    await a.pause("r1");
    await fx.until(async () => (await fx.countStatus("paused")) === 1 && w.running.length === 0, 10_000, "paused, released");
    await w.stop(1000);
    const settled = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).resume("r1")));
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    for (const s of settled) if (s.status === "rejected") expect(s.reason).toMatchObject({ code: "INVALID_STATE" });
    expect(await resumeJobs("r1")).toBe(1);
    await worker();
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 20_000, "completed");
    const twice = await fx.query("SELECT node_name FROM node_invocations WHERE instance_id = 'r1' GROUP BY node_name HAVING count(*) > 1");
    expect(twice).toEqual([]);
  }, 60_000);

  it("pauses sent while workers run steps never deadlock with a step: every instance ends paused, none failed", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker } = c;
    const control = web();
    await worker();
    const ids = Array.from({ length: 12 }, (_, i) => `p${i}`);
    for (const id of ids) await fx.control.create({ graph: chainGraph(60, 50), input: id, instanceId: id });
    await fx.until(async () => (await fx.query("SELECT DISTINCT instance_id FROM node_invocations")).length === ids.length, 10_000, "all started");
    await Promise.all(ids.map((id) => control.pause(id)));
    await fx.until(async () => (await fx.countStatus("running")) === 0, 15_000, "drained");
    expect(await fx.countStatus("failed")).toBe(0);
    expect(await fx.countStatus("paused")).toBe(ids.length);
  }, 60_000);

  it("an answer that finds the instance paused without waiting_for while its worker still holds the lease waits for the run to settle", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, resumeJobs, instance } = c;
    const control = web();
    // The moment between a worker's commit of `paused` and its save of `waiting_for`, held open: no
    // worker runs; the test plays the worker that paused the run and still holds its lease.
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "s1" });
    await fx.query("UPDATE graph_instances SET status = 'paused' WHERE instance_id = 's1'");
    await fx.query("UPDATE cluster_leases SET owner = 'w-settling', epoch = 1, expires_at = now() + interval '10 seconds' WHERE instance_id = 's1'");
    const answered = control.answer("s1", "in time", "token");
    await new Promise((r) => setTimeout(r, 300));
    expect(await resumeJobs("s1")).toBe(0); // still waiting, not refused
    // The worker saves what the run waits for, then releases the lease.
    await fx.query(`UPDATE graph_instances SET attrs = attrs || '{"waiting_for": {"question": "approve?"}}' WHERE instance_id = 's1'`);
    await fx.query("UPDATE cluster_leases SET owner = NULL, expires_at = 'infinity' WHERE instance_id = 's1'");
    // Accepted; no worker runs here to start the resumed run, so the reply says it is queued.
    await expect(answered).resolves.toMatchObject({ command: "ANSWER", status: "queued" });
    expect(await resumeJobs("s1")).toBe(1);
    expect((await instance("s1")).attrs.resume_due).toMatchObject({ kind: "answer" });
  }, 30_000);

  it("the moment a worker's paused status is committed, what the run waits for is there too, and an answer then is accepted", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, output } = c;
    const control = web();
    await Promise.all([fx.query("SELECT 1"), fx.query("SELECT 1")]); // connections open: the read below starts at once
    let seen: Promise<{ status: string; waiting: unknown }[]> | null = null;
    let answered: Promise<unknown> | null = null;
    // The worker's observer sees `instance_status → paused` right after that commit (before the run
    // releases its lease and stores the interrupt's event).
    await worker({
      observer: {
        onEvent: (e) => {
          if (e.type === "instance_status" && e.to === "paused" && !answered) {
            seen = fx.query("SELECT status, attrs->'waiting_for' AS waiting FROM graph_instances WHERE instance_id = $1 AND is_latest", [e.instanceId]);
            answered = control.answer(e.instanceId, "fast", "token").then(
              (r) => r,
              (error: unknown) => error,
            );
          }
        },
      },
    });
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "f1" });
    await fx.until(async () => answered !== null, 10_000, "paused");
    expect(await seen).toEqual([{ status: "paused", waiting: { question: "approve?" } }]);
    expect(await answered).toMatchObject({ command: "ANSWER" });
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 15_000, "completed");
    expect(await output("f1")).toEqual(["after:fast"]);
  }, 60_000);
});
