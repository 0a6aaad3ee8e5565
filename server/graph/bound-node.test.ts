import { describe, expect, it } from "vitest";
import { BoundNode, GraphLayout } from "./bound-node";
import { FunctionNode } from "./nodes/function-node";
import { Topology } from "./topology";

describe("BoundNode", () => {
  const topology = new Topology(["a", "b"], [["a", "b"]]);
  const layout = new GraphLayout(topology, ["node_a", "node_b"]);
  const bound = new BoundNode(new FunctionNode("b", () => undefined), 1, "node_b", layout);

  it("is its own binding: the node's name, position and id, and its graph's topology and ids", () => {
    expect(bound.binding).toBe(bound);
    expect([bound.name, bound.index, bound.nodeId]).toEqual(["b", 1, "node_b"]);
    expect(bound.topology).toBe(topology);
    expect(bound.nodeIds).toEqual(["node_a", "node_b"]);
    expect(Object.isFrozen(bound)).toBe(true);
  });

  it("maps node ids to positions with one map per graph, made when first asked", () => {
    const positions = bound.positions;
    expect([...positions]).toEqual([
      ["node_a", 0],
      ["node_b", 1],
    ]);
    expect(new BoundNode(new FunctionNode("a", () => undefined), 0, "node_a", layout).positions).toBe(positions);
  });
});
