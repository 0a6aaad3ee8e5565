import { describe, expect, it } from "vitest";
import { Graph } from "../graph";
import { END, START } from "../names";
import { DelayNode } from "./delay-node";
import { FunctionNode } from "./function-node";

describe("generic nodes", () => {
  it("FunctionNode delivers the result of a sync or async function", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("sync", () => 1))
      .addNode(new FunctionNode("async", async (_c, i) => (i[0].content as number) + 1))
      .addEdge(START, "sync")
      .addEdge("sync", "async")
      .addEdge("async", END)
      .compile();
    expect((await g.invoke(null)).result.result[0].content).toBe(2);
  });

  it("FunctionNode delivers nothing more when the function routes by itself", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("self", (ctx) => void ctx.deliver("mine", END)))
      .addEdge(START, "self")
      .compile();
    expect((await g.invoke(null)).result.result.map((p) => p.content)).toEqual(["mine"]);
  });

  it("DelayNode sleeps, then delivers its input unchanged, so delays in a row do not nest it", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("make", () => ({ k: [1, 2] })))
      .addNode(new DelayNode("wait", { ms: 15 }))
      .addNode(new DelayNode("again", { ms: 15 }))
      .addEdge(START, "make")
      .addEdge("make", "wait")
      .addEdge("wait", "again")
      .addEdge("again", END)
      .compile();
    const t = performance.now();
    const { result } = await g.invoke(null);
    expect(performance.now() - t).toBeGreaterThanOrEqual(29);
    expect(result.result.map((p) => p.content)).toEqual([{ k: [1, 2] }]);
  });

  it("DelayNode woken by several delivers passes them on as one list", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("two", (ctx) => void (ctx.deliver("a", "wait"), ctx.deliver("b", "wait"))))
      .addNode(new DelayNode("wait", { ms: 1 }))
      .addEdge(START, "two")
      .addEdge("two", "wait")
      .addEdge("wait", END)
      .compile();
    expect((await g.invoke(null)).result.result.map((p) => p.content)).toEqual([["a", "b"]]);
  });

  it("DelayNode is aborted by the run's signal", async () => {
    const g = new Graph().addNode(new DelayNode("wait", { ms: 10_000 })).addEdge(START, "wait").compile();
    const abort = new AbortController();
    const run = g.invoke(null, { signal: abort.signal });
    setTimeout(() => abort.abort(), 10);
    await expect(run).rejects.toThrow(/abort/i);
  });
});
