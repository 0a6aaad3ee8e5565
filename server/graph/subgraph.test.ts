import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SubgraphCompletion } from "./compiled-graph";
import { SubgraphError } from "./errors";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { GraphAsNode } from "./nodes/graph-as-node";
import { HumanInputNode } from "./nodes/human-input-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { defineGraphState } from "./state";

const Shared = defineGraphState({ trail: z.array(z.string()).default([]) });

function inner(name = "inner") {
  return new Graph({ name, state: Shared })
    .addNode(new FunctionNode<typeof Shared>("double", (ctx, input) => {
      ctx.state.trail.push("inner.double");
      return (input[0].content as { content: number }).content * 2;
    }))
    .addEdge(START, "double")
    .compile();
}

describe("subgraphs", () => {
  it("a CompiledGraph is a node: it runs on the shared state and delivers a completion signal", async () => {
    const outer = new Graph({ name: "outer", state: Shared })
      .addNode(new FunctionNode<typeof Shared>("seed", (ctx) => (ctx.state.trail.push("seed"), 21)))
      .addNode(inner())
      .addNode(new FunctionNode<typeof Shared>("after", (ctx, input) => {
        ctx.state.trail.push("after");
        return (input[0].content as SubgraphCompletion).result[0].content;
      }))
      .addEdge(START, "seed")
      .addEdge("seed", "inner")
      .addEdge("inner", "after")
      .addEdge("after", END)
      .compile();
    const { result, ctx } = await outer.invoke(null);
    expect(result.result).toEqual([{ content: 42, source: "after" }]);
    expect(ctx.state.trail).toEqual(["seed", "inner.double", "after"]);
  });

  it("GraphAsNode embeds one compiled fragment under the outer graph's own name", async () => {
    const fragment = inner("fragment");
    const outer = new Graph({ state: Shared })
      .addNode(new GraphAsNode("step", fragment))
      .addEdge(START, "step")
      .compile();
    const { result } = await outer.invoke(5);
    expect((result.result[0].content as SubgraphCompletion).result[0].content).toBe(10);
    expect(outer.nodeIdMap["step/double"]).toBe(fragment.nodeIdMap.double);
  });

  it("an interrupt inside a subgraph resumes inside it, without re-running what came before", async () => {
    let before = 0;
    const sub = new Graph({ name: "sub" })
      .addNode(new HumanInputNode("ask", { prompt: "ok?" }))
      .addEdge(START, "ask")
      .compile();
    const outer = new Graph()
      .addNode(new FunctionNode("before", () => (before++, "x")))
      .addNode(new GraphAsNode("review", sub))
      .addNode(new FunctionNode("after", (_c, i) => (i[0].content as SubgraphCompletion).result[0].content))
      .addEdge(START, "before")
      .addEdge("before", "review")
      .addEdge("review", "after")
      .addEdge("after", END)
      .compile();
    const ctx = outer.createContext({ coordinator: createInMemoryCoordinator() });
    await expect(outer.run(ctx)).rejects.toThrow("interrupted");
    expect(ctx.state.resumeTarget).toBe("review/ask");
    const result = await outer.resume(ctx, "approved");
    expect(result.result.map((p) => p.content)).toEqual(["approved"]);
    expect(before).toBe(1);
  });

  it("a subgraph that never reaches its END fails the outer node", async () => {
    const dead = new Graph({ name: "dead" }).addNode(new FunctionNode("x", () => undefined)).addEdge(START, "x").compile();
    const outer = new Graph().addNode(dead).addEdge(START, "dead").compile();
    await expect(outer.invoke(null)).rejects.toBeInstanceOf(SubgraphError);
  });
});
