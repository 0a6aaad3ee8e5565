import { describe, expect, it } from "vitest";
import { GraphDrained, isGraphInterrupt } from "@/server/graph/errors";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { createInMemoryCoordinator } from "@/server/graph/persistence/factories";
import { GraphRunControl } from "@/server/graph/run-control";
import { InstanceRun, type RunPlan } from "./instance-run";

/** START → gate (interrupts until resumed) → after → END. */
function gateGraph() {
  const ran: string[] = [];
  const graph = new Graph({ name: "gate" })
    .addNode(
      new FunctionNode("gate", (ctx, input) => {
        ran.push("gate");
        const resume = input.find((i) => (i.content as { __resume__?: boolean } | null)?.__resume__);
        if (!resume) ctx.interrupt({ question: "approve?" });
        return (resume!.content as { value: unknown }).value;
      }),
    )
    .addNode(new FunctionNode("after", () => (ran.push("after"), "done")))
    .addEdge(START, "gate")
    .addEdge("gate", "after")
    .addEdge("after", END)
    .compile();
  return { graph, ran };
}

/** An instance interrupted at `gate`, and a resume of it with `value` (as a worker plans it), run to its end. */
async function interrupted() {
  const { graph, ran } = gateGraph();
  const coordinator = createInMemoryCoordinator();
  const ctx = graph.createContext({ coordinator });
  await graph.run(ctx).catch((e) => {
    if (!isGraphInterrupt(e)) throw e;
  });
  const instance = (await coordinator.instances.load(ctx.instanceId))!;
  const resume = (plan: Partial<RunPlan>, control?: GraphRunControl) =>
    new InstanceRun({ instance, mode: "recovery", restoreState: true, resume: { value: "kept" }, ...plan }, { control }).execute(graph, {
      coordinator,
      events: { onEvent: () => {} },
      ownership: {},
    });
  const delivered = async () =>
    (await coordinator.delivers.listByInstance(instance.instanceId)).filter((r) => r.sourceNode === START && r.targetNode === "gate").map((r) => r.content);
  const status = async () => (await coordinator.instances.load(instance.instanceId))?.status;
  return { ran, resume, delivered, status };
}

describe("InstanceRun: a resumed run with a stop to honour", () => {
  it("a stop on the resume plan (stored after the answer was accepted): the answer is handed to the waiting node, then the run stops", async () => {
    const { ran, resume, delivered, status } = await interrupted();
    await expect(resume({ honour: "stop" })).rejects.toMatchObject({ reason: "stop" });
    expect(await status()).toBe("stopped");
    expect(await delivered()).toContainEqual(expect.objectContaining({ value: "kept" }));
    expect(ran).toEqual(["gate"]); // the interrupt only: nothing ran after the resume
  });

  it("a stop asked of the run's control before it started (a worker read it from the lease meanwhile) is made again at run_started", async () => {
    const { ran, resume, delivered, status } = await interrupted();
    const control = new GraphRunControl();
    control.requestStop();
    const error = await resume({}, control).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphDrained);
    expect(error).toMatchObject({ reason: "stop" });
    expect(await status()).toBe("stopped");
    expect(await delivered()).toContainEqual(expect.objectContaining({ value: "kept" }));
    expect(ran).toEqual(["gate"]);
  });
});
