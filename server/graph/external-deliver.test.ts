import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Graph } from "./graph";
import { newSnowflake } from "./ids";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { GraphRunControl } from "./run-control";

/** A pending row an operator delivers from outside the run, as the control service writes it. */
function operatorRow(instanceId: string, targetNode: string, targetNodeId: string) {
  return {
    deliverId: newSnowflake(),
    instanceId,
    sourceNode: "operator",
    sourceNodeId: "external",
    sourceInvocationId: null,
    targetNode,
    targetNodeId,
    content: "hello from outside",
    createdAt: Date.now(),
  };
}

describe.each(["linear", "parallel"] as const)("external deliver (DELIVER_TO_NODE) into a running graph (%s)", (scheduler) => {
  it("the deliver is persisted first, then the wakeup makes the running scheduler consume it", async () => {
    const coordinator = createInMemoryCoordinator();
    const control = new GraphRunControl();
    const g = new Graph()
      .addNode(new FunctionNode("slow", async () => (await sleep(40), "slow done")))
      .addNode(new FunctionNode("inbox", (_c, input) => `inbox got ${input.map((i) => i.content).join(",")}`))
      .addEdge(START, "slow")
      .addEdge(START, "inbox")
      .addEdge("slow", END)
      .addEdge("inbox", END)
      .compile({ scheduler });
    const ctx = g.createContext({ coordinator, control });
    const run = g.run(ctx);
    await sleep(10);
    await coordinator.delivers.appendPending(operatorRow(ctx.instanceId, "inbox", g.nodeIdMap.inbox));
    expect(control.wake("inbox")).toBe(true);
    const result = await run;
    const contents = result.result.map((p) => p.content);
    expect(contents).toContain("slow done");
    expect(contents.some((c) => String(c).includes("hello from outside"))).toBe(true);
    expect(control.wake("inbox")).toBe(false);
  });
});

describe.each(["linear", "parallel"] as const)("external deliver to a node that is running (%s)", (scheduler) => {
  it("waits for that node's invocation to end, then runs it once more on the new row alone: never beside itself on its inputs", async () => {
    const coordinator = createInMemoryCoordinator();
    const control = new GraphRunControl();
    let running = 0;
    let most = 0;
    const inputs: unknown[][] = [];
    const g = new Graph()
      .addNode(
        new FunctionNode("slow", async (_c, input) => {
          most = Math.max(most, ++running);
          inputs.push(input.map((i) => i.content));
          await sleep(60);
          running--;
          return "slow done";
        }),
      )
      .addEdge(START, "slow")
      .addEdge("slow", END)
      .compile({ scheduler });
    const ctx = g.createContext({ coordinator, control, input: { content: "first" } });
    const run = g.run(ctx);
    await sleep(20);
    await coordinator.delivers.appendPending(operatorRow(ctx.instanceId, "slow", g.nodeIdMap.slow));
    // A cluster worker hears of one deliver twice (its job and its notification).
    expect(control.wake("slow")).toBe(true);
    expect(control.wake("slow")).toBe(true);
    await run;
    expect(most).toBe(1);
    expect(inputs).toEqual([[{ content: "first" }], ["hello from outside"]]);
  });
});
