import { describe, expect, it } from "vitest";
import { bootstrap } from "./bootstrap";
import { Graph } from "./graph";
import { newSnowflake } from "./ids";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { GraphPersistenceCoordinator } from "./persistence/coordinator";
import { createInMemoryCoordinator } from "./persistence/factories";
import type { NewDeliverRow } from "./persistence/records";

function pipeline() {
  return new Graph()
    .addNode(new FunctionNode("a", () => "A"))
    .addNode(new FunctionNode("b", (_c, i) => `${i[0].content}B`))
    .addNode(new FunctionNode("c", (_c, i) => `${i[0].content}C`))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile();
}

function row(g: ReturnType<typeof pipeline>, instanceId: string, from: string, to: string, sourceInvocationId: string | null, content: unknown): NewDeliverRow {
  return {
    deliverId: newSnowflake(),
    instanceId,
    sourceNode: from,
    sourceNodeId: g.nodeIdMap[from],
    sourceInvocationId,
    targetNode: to,
    targetNodeId: g.nodeIdMap[to],
    content,
    createdAt: Date.now(),
  };
}

async function freshInstance() {
  const g = pipeline();
  const coordinator = createInMemoryCoordinator();
  const ctx = g.createContext({ coordinator, input: "in" });
  const rec = await coordinator.instances.create({ graphName: g.name, nodeIdMap: g.nodeIdMap, input: ctx.userInput });
  ctx.instanceId = rec.instanceId;
  return { g, coordinator, ctx, id: rec.instanceId };
}

describe("bootstrap", () => {
  it("FRESH scans nothing and returns the entry node", async () => {
    const { g, ctx } = await freshInstance();
    expect(await bootstrap(ctx, g, "fresh")).toEqual([START]);
  });

  it("RECOVERY with nothing to recover falls back to the entry node", async () => {
    const { g, ctx } = await freshInstance();
    expect(await bootstrap(ctx, g, "recovery")).toEqual([START]);
  });

  it("RECOVERY promotes a completed source's STAGED rows (crash between complete and promote)", async () => {
    const { g, coordinator, ctx, id } = await freshInstance();
    const a = await coordinator.nodes.begin({ instanceId: id, nodeId: g.nodeIdMap.a, nodeName: "a" });
    await coordinator.delivers.stage([row(g, id, "a", "b", a.invocationId, "A")]);
    await coordinator.nodes.complete(a.invocationId);
    expect(await bootstrap(ctx, g, "recovery")).toEqual(["b"]);
    expect((await coordinator.delivers.listByInstance(id)).map((r) => r.status)).toEqual(["PENDING"]);
  });

  it("RECOVERY completes a completed consumer's CONSUMED_PENDING rows (crash before promoting inputs)", async () => {
    const { g, coordinator, ctx, id } = await freshInstance();
    const pending = await coordinator.delivers.appendPending(row(g, id, "a", "b", null, "A"));
    const b = await coordinator.nodes.begin({ instanceId: id, nodeId: g.nodeIdMap.b, nodeName: "b" });
    await coordinator.delivers.markConsumed([pending.deliverId], b.invocationId);
    await coordinator.delivers.stage([row(g, id, "b", "c", b.invocationId, "AB")]);
    await coordinator.nodes.complete(b.invocationId);
    await coordinator.delivers.promoteStaged(b.invocationId);
    expect(await bootstrap(ctx, g, "recovery")).toEqual(["c"]);
    const rows = await coordinator.delivers.listByInstance(id);
    expect(rows.map((r) => [r.targetNode, r.status])).toEqual([
      ["b", "CONSUMED_COMPLETED"],
      ["c", "PENDING"],
    ]);
  });

  it("RECOVERY seeds from orphaned RUNNING invocations and re-offers their inputs, in topological order", async () => {
    const { g, coordinator, ctx, id } = await freshInstance();
    const toC = await coordinator.delivers.appendPending(row(g, id, "b", "c", null, "AB"));
    await coordinator.delivers.appendPending(row(g, id, "a", "b", null, "A"));
    const c = await coordinator.nodes.begin({ instanceId: id, nodeId: g.nodeIdMap.c, nodeName: "c" });
    await coordinator.delivers.markConsumed([toC.deliverId], c.invocationId);
    await coordinator.delivers.stage([row(g, id, "c", END, c.invocationId, "never promoted")]);

    expect(await bootstrap(ctx, g, "recovery")).toEqual(["b", "c"]);
    expect((await coordinator.nodes.get(c.invocationId))?.status).toBe("CRASHED");
    const rows = await coordinator.delivers.listByInstance(id);
    expect(rows.map((r) => [r.targetNode, r.status])).toEqual([
      ["c", "CONSUMED_PENDING"],
      ["b", "PENDING"],
    ]);
  });

  it("a recovered run finishes the work without repeating completed nodes", async () => {
    const { g, coordinator, ctx, id } = await freshInstance();
    const a = await coordinator.nodes.begin({ instanceId: id, nodeId: g.nodeIdMap.a, nodeName: "a" });
    await coordinator.delivers.stage([row(g, id, "a", "b", a.invocationId, "A")]);
    await coordinator.nodes.complete(a.invocationId);
    await coordinator.instances.transition(id, "crashed");
    const result = await g.run(ctx, "recovery");
    expect(result.result.map((p) => p.content)).toEqual(["ABC"]);
    const names = (await coordinator.nodes.listByInstance(id)).map((i) => i.nodeName);
    expect(names).toEqual(["a", "b", "c", END]);
  });

  it("RECOVERY of a run whose END already completed runs nothing again", async () => {
    const { g, coordinator, ctx, id } = await freshInstance();
    // The process "dies" right after END completed, before the instance is marked completed.
    const dying = Object.create(coordinator.instances) as typeof coordinator.instances;
    dying.transition = async (instanceId, to, from) => {
      if (to === "completed") throw new Error("process killed");
      return coordinator.instances.transition(instanceId, to, from);
    };
    const crashingRun = { ...ctx, coordinator: new GraphPersistenceCoordinator(dying, coordinator.nodes, coordinator.delivers) };
    await expect(g.run(crashingRun)).rejects.toThrow("process killed");
    await coordinator.instances.transition(id, "crashed");
    const before = await coordinator.nodes.listByInstance(id);

    const again = await g.run(ctx, "recovery");
    expect(again).toMatchObject({ reachedEnd: true, iterations: 0, status: "completed" });
    expect(await coordinator.nodes.listByInstance(id)).toHaveLength(before.length);
    expect((await coordinator.instances.load(id))?.status).toBe("completed");
  });
});
