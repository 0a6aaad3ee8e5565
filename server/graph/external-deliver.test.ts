import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Graph } from "./graph";
import { newSnowflake } from "./ids";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { GraphRunControl } from "./run-control";

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
    await coordinator.delivers.appendPending({
      deliverId: newSnowflake(),
      instanceId: ctx.instanceId,
      sourceNode: "operator",
      sourceNodeId: "external",
      sourceInvocationId: null,
      targetNode: "inbox",
      targetNodeId: g.nodeIdMap.inbox,
      content: "hello from outside",
      createdAt: Date.now(),
    });
    expect(control.wake("inbox")).toBe(true);
    const result = await run;
    const contents = result.result.map((p) => p.content);
    expect(contents).toContain("slow done");
    expect(contents.some((c) => String(c).includes("hello from outside"))).toBe(true);
    expect(control.wake("inbox")).toBe(false);
  });
});
