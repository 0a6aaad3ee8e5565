import { describe, expect, it } from "vitest";
import { backEdges } from "@/shared/canvas/back-edges";
import { edgeId, type TopoNode } from "@/shared/canvas/topology";

const node = (id: string): TopoNode => ({ id, kind: id === "__start__" ? "start" : id === "__end__" ? "end" : "node", nodeType: "", isJoin: false });
const graph = (ids: string[], pairs: [string, string][]) => ({ nodes: ids.map(node), edges: pairs.map(([s, t]) => ({ id: edgeId(s, t), source: s, target: t })) });

describe("backEdges", () => {
  it("finds the edge that closes a loop, not the edges into or out of it", () => {
    const g = graph(["__start__", "tick", "check", "done", "__end__"], [["__start__", "tick"], ["tick", "check"], ["check", "tick"], ["check", "done"], ["done", "__end__"]]);
    expect([...backEdges(g)]).toEqual([edgeId("check", "tick")]);
  });

  it("finds no loop in a fan-out and join", () => {
    const g = graph(["__start__", "a", "b", "c", "__end__"], [["__start__", "a"], ["a", "b"], ["a", "c"], ["b", "__end__"], ["c", "__end__"]]);
    expect(backEdges(g).size).toBe(0);
  });

  it("walks a 20,000-node chain with a loop back to its start without overflowing the stack", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `n${i}`);
    const pairs: [string, string][] = ids.slice(1).map((id, i) => [ids[i], id]);
    pairs.push([ids[ids.length - 1], ids[0]]);
    expect([...backEdges(graph(ids, pairs))]).toEqual([edgeId(ids[ids.length - 1], ids[0])]);
  });
});
