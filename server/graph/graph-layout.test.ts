import { describe, expect, it } from "vitest";
import { NodeContext } from "./context";
import { GraphLayout } from "./graph-layout";
import { FunctionNode } from "./nodes/function-node";
import { Topology } from "./topology";
import { Graph } from "./graph";

describe("GraphLayout", () => {
  const topology = new Topology(["a", "b"], [["a", "b"]]);
  const nodes = [new FunctionNode("a", () => undefined), new FunctionNode("b", () => undefined)];
  const layout = new GraphLayout(topology, ["node_a", "node_b"], nodes);
  const ctx = new NodeContext(new Graph().compile().createContext(), layout, 1, 0);

  it("addresses a node execution as its graph's layout and a position: the context is its own binding", () => {
    expect(ctx.binding).toBe(ctx);
    expect([ctx.name, ctx.index, ctx.nodeId, ctx.nodeName, ctx.nodeInstance]).toEqual(["b", 1, "node_b", "b", "b#0"]);
    expect(ctx.topology).toBe(topology);
    expect(ctx.nodeIds).toEqual(["node_a", "node_b"]);
    expect(layout.nodes[ctx.index]).toBe(nodes[1]);
  });

  it("maps node ids to positions with one map per graph, made when first asked", () => {
    const positions = ctx.positions;
    expect([...positions]).toEqual([
      ["node_a", 0],
      ["node_b", 1],
    ]);
    expect(new NodeContext(ctx.graph, layout, 0, 3).positions).toBe(positions);
  });
});
