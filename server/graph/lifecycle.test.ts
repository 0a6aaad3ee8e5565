import { describe, expect, it } from "vitest";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator, createNullCoordinator } from "./persistence/factories";
import type { DeliverStatus } from "./persistence/records";
import { RecordingObserver } from "./events";

describe("node lifecycle", () => {
  it("runs begin → integrate → execute → complete → promote outputs → dispatch → promote inputs", async () => {
    const coordinator = createInMemoryCoordinator();
    const seen: { node: string; inputStatus: DeliverStatus[]; ledger: DeliverStatus[] }[] = [];
    const probe = (name: string) =>
      new FunctionNode(name, async (ctx, input) => {
        const ledger = await coordinator.delivers.listByInstance(ctx.graph.instanceId);
        const inv = await coordinator.nodes.get(ctx.invocation.invocationId);
        expect(inv?.status).toBe("RUNNING");
        seen.push({ node: name, inputStatus: input.map((i) => i.status), ledger: ledger.map((r) => r.status) });
        return `${name} done`;
      });
    const g = new Graph().addNode(probe("a")).addNode(probe("b")).addEdge(START, "a").addEdge("a", "b").addEdge("b", END).compile();
    const { result } = await g.invoke("go", { coordinator });

    // While a runs, START's row is claimed by a (CONSUMED_PENDING); while b runs, a's own input is terminal.
    expect(seen[0]).toEqual({ node: "a", inputStatus: ["PENDING"], ledger: ["CONSUMED_PENDING"] });
    expect(seen[1]).toEqual({ node: "b", inputStatus: ["PENDING"], ledger: ["CONSUMED_COMPLETED", "CONSUMED_PENDING"] });
    const final = await coordinator.delivers.listByInstance(result.instanceId);
    expect(final.map((r) => [r.sourceNode, r.targetNode, r.status])).toEqual([
      [START, "a", "CONSUMED_COMPLETED"],
      ["a", "b", "CONSUMED_COMPLETED"],
      ["b", END, "CONSUMED_COMPLETED"],
    ]);
    const invocations = await coordinator.nodes.listByInstance(result.instanceId);
    expect(invocations.map((i) => [i.nodeName, i.status])).toEqual([
      [START, "COMPLETED"],
      ["a", "COMPLETED"],
      ["b", "COMPLETED"],
      [END, "COMPLETED"],
    ]);
  });

  it.each([
    ["in-memory", createInMemoryCoordinator],
    ["null", createNullCoordinator],
  ] as const)("hands a node its claimed rows as its input (%s stores)", async (_kind, create) => {
    const seen: { sourceNode: string }[] = [];
    const g = new Graph()
      .addNode(new FunctionNode("f", (ctx) => void (ctx.deliver("x", "a"), ctx.deliver("y", "b"))))
      .addNode(new FunctionNode("a", () => "from a", { next: "c" }))
      .addNode(new FunctionNode("b", () => "from b", { next: "c" }))
      .addNode(new FunctionNode("c", (_ctx, input) => void seen.push(...input.map(({ sourceNode, content, status }) => ({ sourceNode, content, status })))))
      .addEdge(START, "f").addEdge("f", "a").addEdge("f", "b").addEdge("a", "c").addEdge("b", "c").addEdge("c", END)
      .compile({ scheduler: "parallel" });
    await g.invoke(null, { coordinator: create() });
    expect(seen.sort((x, y) => x.sourceNode.localeCompare(y.sourceNode))).toEqual([
      { sourceNode: "a", content: "from a", status: "PENDING" },
      { sourceNode: "b", content: "from b", status: "PENDING" },
    ]);
  });

  it("keys invocations and delivers by node id, not name", async () => {
    const coordinator = createInMemoryCoordinator();
    const g = new Graph().addNode(new FunctionNode("a", () => 1)).addEdge(START, "a").compile();
    const { result } = await g.invoke(null, { coordinator });
    const rows = await coordinator.delivers.listByInstance(result.instanceId);
    expect(rows[0].targetNodeId).toBe(g.nodeIdMap.a);
    const inv = (await coordinator.nodes.listByInstance(result.instanceId)).find((i) => i.nodeName === "a");
    expect(inv?.nodeId).toBe(g.nodeIdMap.a);
  });

  it("builds a version chain per node across a loop", async () => {
    const coordinator = createInMemoryCoordinator();
    let n = 0;
    const g = new Graph()
      .addNode(new FunctionNode("body", (ctx) => void ctx.deliver(n, ++n < 3 ? "body" : END)))
      .addEdge(START, "body")
      .addEdge("body", "body")
      .addEdge("body", END)
      .compile();
    const { result } = await g.invoke(null, { coordinator });
    const chain = await coordinator.nodes.history(result.instanceId, g.nodeIdMap.body);
    expect(chain.map((i) => [i.version, i.parentVersion])).toEqual([
      [1, null],
      [2, 1],
      [3, 2],
    ]);
  });

  it("a failing node fails its invocation and the instance, and the error propagates untouched", async () => {
    const coordinator = createInMemoryCoordinator();
    const boom = new Error("boom");
    const obs = new RecordingObserver();
    const g = new Graph()
      .addNode(new FunctionNode("bad", () => {
        throw boom;
      }))
      .addEdge(START, "bad")
      .compile();
    const ctx = g.createContext({ coordinator, observer: obs });
    await expect(g.run(ctx)).rejects.toBe(boom);
    const inv = (await coordinator.nodes.listByInstance(ctx.instanceId)).find((i) => i.nodeName === "bad");
    expect(inv).toMatchObject({ status: "FAILED", error: "boom" });
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("failed");
    expect(obs.ofType("node_failed")).toMatchObject([{ node: "bad", error: "boom" }]);
    // The input it claimed stays consumable: a retry would see it again.
    expect((await coordinator.delivers.listByStatus(ctx.instanceId, ["CONSUMED_PENDING"])).length).toBe(1);
  });

  it("END aggregates every delivered payload into state.result in delivery order", async () => {
    const g = new Graph()
      .addNode(
        new FunctionNode("multi", (ctx) => {
          ctx.deliver("first", END);
          ctx.deliver({ content: "second", source: "custom" }, END);
          ctx.deliver(3, END);
        }),
      )
      .addEdge(START, "multi")
      .compile();
    const { result, ctx } = await g.invoke(null);
    expect(result.result).toEqual([
      { content: "first", source: "multi" },
      { content: "second", source: "custom" },
      { content: 3, source: "multi" },
    ]);
    expect(ctx.state.result).toBe(result.result);
    for (const p of result.result) expect(Object.isFrozen(p)).toBe(true);
  });

  it("validates the initial state against the zod schema", async () => {
    const { CounterState } = await import("./testing/fixtures");
    const g = new Graph({ state: CounterState }).addNode(new FunctionNode("a", () => 1)).addEdge(START, "a").compile();
    expect(() => g.createContext({ state: { count: "nope" as unknown as number } })).toThrow();
    expect(g.createContext({ state: { count: 2 } }).state).toMatchObject({ count: 2, resumeTarget: null, result: [] });
  });
});
