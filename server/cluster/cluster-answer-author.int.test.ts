import { describe, expect, it } from "vitest";
import { gateGraph } from "./testing/cluster-graphs";
import { ControlCluster } from "./testing/control-cluster";

/** A cluster (PostgreSQL) records the sign-in session of an answer and of a decision, as one process does. */
describe("who answered or decided, by sign-in session (postgres)", () => {
  it("an answer and an approval decision keep the ref of the browser session that sent them", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance } = c;
    const control = web();
    const w = await worker();
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "g1" });
    await fx.until(async () => (await instance("g1"))?.attrs.waiting_for != null && w.running.length === 0, 10_000, "waiting");
    await control.answer("g1", "yes", { by: "session", session: "0123456789abcdef" });
    expect((await instance("g1")).attrs.answers).toEqual([expect.objectContaining({ value: "yes", by: "session", session: "0123456789abcdef" })]);
    await w.stop(1000);

    // An instance waiting for an agent's tool approval, as a worker leaves it (no worker runs here).
    const waiting = { kind: "agent_approval", node: "agent", prompt: "run deploy?", transactionId: "tx1", turnId: "t1", tool: "deploy", args: {}, reasoning: "", requestedAt: 1, context: [] };
    await fx.control.create({ graph: gateGraph(), input: "x", instanceId: "a1" });
    await fx.query("UPDATE graph_instances SET status = 'paused', attrs = attrs || jsonb_build_object('waiting_for', $1::jsonb) WHERE instance_id = 'a1'", [JSON.stringify(waiting)]);
    await fx.query("UPDATE cluster_leases SET owner = NULL, expires_at = 'infinity' WHERE instance_id = 'a1'");
    await control.decide({ instanceId: "a1", approved: false, transactionId: "tx1", by: { by: "session", session: "fedcba9876543210" } });
    expect((await instance("a1")).attrs.agent_approvals).toEqual([expect.objectContaining({ approved: false, by: "session", session: "fedcba9876543210" })]);
  }, 60_000);
});
