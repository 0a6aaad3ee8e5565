import { describe, expect, it } from "vitest";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import type { GraphCatalog } from "./cluster-worker";
import { chainGraph, testGraphCatalog } from "./testing/cluster-graphs";
import { ControlCluster } from "./testing/control-cluster";

/** START → gate (asks until answered) → slow (300 ms) → END: the answered run is still going when the reply comes. */
function slowGateGraph() {
  const g = new Graph({ name: "replies-slow-gate" });
  g.addNode(
    new FunctionNode("gate", (ctx, input) => {
      const resume = input.find((i) => (i.content as { __resume__?: boolean } | null)?.__resume__);
      if (!resume) ctx.interrupt({ question: "go?" });
      return (resume!.content as { value: unknown }).value;
    }),
  )
    .addNode(new FunctionNode("slow", async (_c, input) => (await new Promise((r) => setTimeout(r, 300)), `after:${String(input[0].content)}`)))
    .addEdge(START, "gate")
    .addEdge("gate", "slow")
    .addEdge("slow", END);
  return g.compile();
}

const graphs: GraphCatalog = (record) => (record.graphName === "replies-slow-gate" ? slowGateGraph() : testGraphCatalog(record));

/**
 * What a web process on PostgreSQL replies to the commands that make a run due: the single process
 * answers once the run it starts is going (RUNNING, the new version), so a web process answers once a
 * worker has started it, and says `queued` (never the status from before the command) when no worker
 * has within its wait.
 */
describe("the replies of a web process's commands on a cluster", () => {
  it("answer, Step, resume, reinvoke, a deliver's new run and recover reply with the run a worker started", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance } = c;
    const control = web();
    const w = await worker({ graphs });
    const settledAs = (id: string, status: string, what: string) =>
      fx.until(async () => (await instance(id))?.status === status && !w.running.includes(id), 15_000, what);

    // ANSWER: the single process replies `running` (the resumed run is going), not `paused`.
    await fx.control.create({ graph: slowGateGraph(), input: "x", instanceId: "a1" });
    await fx.until(async () => (await instance("a1"))?.attrs.waiting_for != null && !w.running.includes("a1"), 15_000, "a1 waits, released");
    expect(await control.answer("a1", "yes", "token")).toEqual({ command: "ANSWER", instanceId: "a1", version: 1, status: "running" });

    // STEP and RESUME of a run held at a breakpoint (each node 200 ms).
    await fx.control.create({ graph: chainGraph(5, 200), input: "s", instanceId: "s1", breakpoints: ["n2"] });
    await fx.until(async () => (await instance("s1"))?.attrs.held_at === "n2" && !w.running.includes("s1"), 15_000, "s1 held at n2");
    expect(await control.resume("s1", { step: true })).toEqual({ command: "STEP", instanceId: "s1", version: 1, status: "running" });
    await fx.until(async () => (await instance("s1"))?.attrs.held_at === "n3" && !w.running.includes("s1"), 15_000, "s1 held at n3");
    expect(await control.resume("s1")).toEqual({ command: "RESUME_GRAPH", instanceId: "s1", version: 1, status: "running" });
    await settledAs("s1", "completed", "s1 completed");

    // REINVOKE: the single process replies with version 2, running.
    expect(await control.reinvoke("s1", "again")).toEqual({ command: "REINVOKE", instanceId: "s1", version: 2, status: "running" });
    await fx.until(async () => (await instance("s1"))?.attrs.held_at === "n2" && !w.running.includes("s1"), 15_000, "v2 held at n2");
    await control.resume("s1");
    await settledAs("s1", "completed", "v2 completed");

    // A deliver to a completed instance: its new run (version 3) is going.
    expect(await control.deliver({ instanceId: "s1", node: "n4", content: "late" })).toMatchObject({ version: 3, status: "running", pickup: "new_run" });
    await settledAs("s1", "completed", "v3 completed");

    // RECOVER of a crashed instance (as one whose worker died leaves it, lease released): running.
    await fx.control.create({ graph: chainGraph(4, 200), input: "r", instanceId: "r1" });
    await fx.until(async () => (await fx.query("SELECT 1 FROM node_invocations WHERE instance_id = 'r1' AND status = 'COMPLETED'")).length >= 1, 15_000, "r1 started");
    await control.pause("r1");
    await settledAs("r1", "paused", "r1 paused, released");
    await fx.query("UPDATE graph_instances SET status = 'crashed', attrs = attrs - 'control_request' WHERE instance_id = 'r1' AND is_latest");
    expect(await control.recover("r1")).toEqual({ command: "RECOVER", instanceId: "r1", version: 1, status: "running" });
    await settledAs("r1", "completed", "r1 completed");
  }, 120_000);

  it("with no worker to start the run within the wait, the reply is `queued` with the version it is to run; a worker then runs it", async () => {
    await using c = await ControlCluster.create();
    const { fx, web, worker, instance, output } = c;
    const control = web({ startWaitMs: 300 });
    const first = await worker({ graphs });
    await fx.control.create({ graph: slowGateGraph(), input: "x", instanceId: "q1" });
    await fx.until(async () => (await instance("q1"))?.attrs.waiting_for != null && first.running.length === 0, 15_000, "q1 waits, released");
    await first.stop(1000);

    const began = Date.now();
    expect(await control.answer("q1", "later", "token")).toEqual({ command: "ANSWER", instanceId: "q1", version: 1, status: "queued" });
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect((await instance("q1")).status).toBe("paused"); // what the instance reads until a worker starts the run

    const second = await worker({ graphs });
    await fx.until(async () => (await instance("q1"))?.status === "completed" && second.running.length === 0, 15_000, "q1 completed");
    await second.stop(1000);
    expect(await control.reinvoke("q1", "v2")).toEqual({ command: "REINVOKE", instanceId: "q1", version: 2, status: "queued" });

    const third = await worker({ graphs });
    await fx.until(async () => (await instance("q1"))?.version === 2 && (await instance("q1")).attrs.waiting_for != null && third.running.length === 0, 15_000, "v2 asks");
    // With a worker to take it (and the default wait), the reply is the running run.
    expect(await web().answer("q1", "now", "token")).toMatchObject({ version: 2, status: "running" });
    await fx.until(async () => (await instance("q1"))?.status === "completed", 15_000, "v2 completed");
    expect(await output("q1")).toEqual(["after:now"]);
  }, 60_000);
});
