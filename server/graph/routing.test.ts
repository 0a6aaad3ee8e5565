import { describe, expect, it } from "vitest";
import { DeliverRoutingError } from "./errors";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";

describe("deliver-only routing", () => {
  it("null target resolves the single downstream edge", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("a", () => "from a"))
      .addNode(new FunctionNode("b", (_c, input) => `${input[0].content} via b`))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile();
    const { result } = await g.invoke("x");
    expect(result.result.map((p) => p.content)).toEqual(["from a via b"]);
  });

  it("null target resolves to END when the node has no downstream edge", async () => {
    const g = new Graph().addNode(new FunctionNode("a", () => 42)).addEdge(START, "a").compile();
    const { result } = await g.invoke(null);
    expect(result.result).toEqual([{ content: 42, source: "a" }]);
  });

  it("several downstream edges without a named target is an error", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("a", () => "?"))
      .addNode(new FunctionNode("b", () => null))
      .addNode(new FunctionNode("c", () => null))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("a", "c")
      .compile();
    await expect(g.invoke(null)).rejects.toThrow(DeliverRoutingError);
  });

  it("a node with many downstream edges delivers to each of them by name, and to no other node", async () => {
    const fanTo = (targets: (i: number) => string) => {
      const g = new Graph().addNode(
        new FunctionNode("fan", (ctx) => {
          for (let i = 0; i < 40; i++) ctx.deliver(i, targets(i));
        }),
      );
      g.addEdge(START, "fan").addNode(new FunctionNode("stray", () => undefined)).addEdge(START, "stray");
      for (let i = 0; i < 40; i++) g.addNode(new FunctionNode(`b${i}`, () => undefined)).addEdge("fan", `b${i}`);
      return g.compile({ scheduler: "parallel" });
    };
    const { ctx } = await fanTo((i) => `b${i}`).invoke(null, { coordinator: createInMemoryCoordinator() });
    const consumed = await ctx.coordinator.delivers.listByStatus(ctx.instanceId, ["CONSUMED_COMPLETED"]);
    expect(consumed.filter((r) => r.sourceNode === "fan").map((r) => r.targetNode)).toEqual(Array.from({ length: 40 }, (_, i) => `b${i}`));
    // Named in any order (a permutation, so most names are not the next declared successor).
    const shuffled = await fanTo((i) => `b${(i * 7) % 40}`).invoke(null, { coordinator: createInMemoryCoordinator() });
    const reached = await shuffled.ctx.coordinator.delivers.listByStatus(shuffled.ctx.instanceId, ["CONSUMED_COMPLETED"]);
    expect(reached.filter((r) => r.sourceNode === "fan").map((r) => r.targetNode)).toEqual(Array.from({ length: 40 }, (_, i) => `b${(i * 7) % 40}`));
    await expect(fanTo((i) => (i < 5 ? `b${i}` : "stray")).invoke(null)).rejects.toThrow('"fan" has no edge to "stray"');
    await expect(fanTo(() => "stray").invoke(null)).rejects.toThrow('"fan" has no edge to "stray"');
    await expect(fanTo(() => "nowhere").invoke(null)).rejects.toThrow('"fan" has no edge to "nowhere"');
  });

  it.each(["linear", "parallel"] as const)("discardDelivers drops what a node delivered; what it delivers next goes out (%s)", async (scheduler) => {
    const coordinator = createInMemoryCoordinator();
    const ran: string[] = [];
    const g = new Graph()
      .addNode(
        new FunctionNode("a", (ctx) => {
          ctx.deliver("dropped", "b");
          ctx.deliver("dropped too", "c");
          ctx.discardDelivers();
          expect(ctx.outbox).toEqual([]);
          ctx.deliver("kept", "c");
        }),
      )
      .addNode(new FunctionNode("b", () => void ran.push("b")))
      .addNode(new FunctionNode("c", (_c, input) => void ran.push(`c got ${input.map((i) => i.content).join()}`)))
      .addEdge(START, "a").addEdge("a", "b").addEdge("a", "c").addEdge("b", END).addEdge("c", END)
      .compile({ scheduler });
    const { result } = await g.invoke(null, { coordinator });
    expect(ran).toEqual(["c got kept"]);
    const rows = await coordinator.delivers.listByInstance(result.instanceId);
    expect(rows.filter((r) => r.sourceNode === "a").map((r) => [r.targetNode, r.content])).toEqual([["c", "kept"]]);
  });

  it("a named target without an edge is an error", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("a", () => "x", { next: "c" }))
      .addNode(new FunctionNode("c", () => null))
      .addEdge(START, "a")
      .addEdge(START, "c")
      .compile();
    await expect(g.invoke(null)).rejects.toThrow(/has no edge to "c"/);
  });

  it("conditional routing is an if inside the node", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("route", (ctx, input) => void ctx.deliver(input[0].content, (input[0].content as { content: number }).content > 0 ? "pos" : "neg")))
      .addNode(new FunctionNode("pos", () => "positive"))
      .addNode(new FunctionNode("neg", () => "negative"))
      .addEdge(START, "route")
      .addEdge("route", "pos")
      .addEdge("route", "neg")
      .compile();
    expect((await g.invoke(5)).result.result[0].content).toBe("positive");
    expect((await g.invoke(-5)).result.result[0].content).toBe("negative");
  });

  it("a dead end finishes with reachedEnd = false and the instance FAILED", async () => {
    const coordinator = createInMemoryCoordinator();
    const g = new Graph()
      .addNode(new FunctionNode("sink", () => undefined))
      .addEdge(START, "sink")
      .compile();
    const { result } = await g.invoke(null, { coordinator });
    expect(result.reachedEnd).toBe(false);
    expect(result.status).toBe("failed");
    expect((await coordinator.instances.load(result.instanceId))?.status).toBe("failed");
  });

  it("START delivers the graph input to every downstream edge", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("a", (_c, i) => `a:${(i[0].content as { content: string }).content}`))
      .addNode(new FunctionNode("b", (_c, i) => `b:${(i[0].content as { content: string }).content}`))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ scheduler: "parallel" });
    const { result } = await g.invoke("in");
    expect(result.result.map((p) => p.content).sort()).toEqual(["a:in", "b:in"]);
  });
});
