import { describe, expect, it } from "vitest";
import { DeliverRoutingError, GraphConfigError, TopologyError } from "./errors";
import { Graph } from "./graph";
import { NODE_ID_PATTERN } from "./ids";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";

const node = (name: string) => new FunctionNode(name, () => null);

function issuesOf(build: (g: Graph) => void): string[] {
  const g = new Graph();
  build(g);
  try {
    g.compile();
  } catch (e) {
    expect(e).toBeInstanceOf(TopologyError);
    return (e as TopologyError).issues.map((i) => `${i.kind}:${i.node ?? ""}`);
  }
  return [];
}

describe("Graph and compile()", () => {
  it("registers START and END as real nodes with their own node ids", () => {
    const g = new Graph().addNode(node("a")).addEdge(START, "a").addEdge("a", END).compile();
    expect(g.nodeNames()).toEqual([START, END, "a"]);
    for (const name of [START, END, "a"]) expect(g.nodeIdMap[name]).toMatch(NODE_ID_PATTERN);
    expect(new Set(Object.values(g.nodeIdMap)).size).toBe(3);
  });

  it("returns an immutable CompiledGraph", () => {
    const g = new Graph().addNode(node("a")).addEdge(START, "a").compile();
    expect(Object.isFrozen(g)).toBe(true);
    expect(Object.isFrozen(g.nodeIdMap)).toBe(true);
    expect(() => ((g as { maxIterations: number }).maxIterations = 1)).toThrow(TypeError);
  });

  it("accepts a node with no downstream edge: it implicitly connects to END", () => {
    const g = new Graph().addNode(node("a")).addEdge(START, "a").compile();
    expect(g.topology.successorsOf("a")).toEqual([END]);
    expect(g.topology.implicitEndEdges).toEqual(["a"]);
  });

  it("rejects edges naming unknown nodes", () => {
    expect(issuesOf((g) => g.addNode(node("a")).addEdge(START, "a").addEdge("a", "ghost"))).toContain("unknown_node:ghost");
  });

  it("rejects nodes unreachable from START", () => {
    expect(issuesOf((g) => g.addNode(node("a")).addNode(node("island")).addEdge(START, "a"))).toEqual(["unreachable_node:island"]);
  });

  it("rejects a graph where END cannot be reached", () => {
    const issues = issuesOf((g) => g.addNode(node("a")).addNode(node("b")).addEdge(START, "a").addEdge("a", "b").addEdge("b", "a"));
    expect(issues).toContain("end_unreachable:a");
    expect(issues).toContain("end_unreachable:");
  });

  it("rejects duplicate node names and edges into START or out of END", () => {
    const issues = issuesOf((g) =>
      g.addNode(node("a")).addNode(node("a")).addEdge(START, "a").addEdge("a", START).addEdge(END, "a"),
    );
    expect(issues).toEqual(expect.arrayContaining(["duplicate_node:a", "invalid_edge:a"]));
  });

  it("reports every issue at once", () => {
    const issues = issuesOf((g) => g.addNode(node("x")).addEdge(START, "nope"));
    expect(issues.length).toBeGreaterThanOrEqual(2);
  });

  it("warns that ON_RECEIVE is deprecated", () => {
    const warnings: string[] = [];
    const g = new Graph()
      .addNode(new FunctionNode("r", () => null, { triggerMode: "ON_RECEIVE" }))
      .addEdge(START, "r")
      .compile({ onWarning: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ON_RECEIVE.*deprecated/);
    expect(g.warnings).toEqual(warnings);
  });

  it("forces END to ON_ALL_PREDS", () => {
    const g = new Graph().addNode(node("a")).addEdge(START, "a").compile();
    expect(g.triggerModeOf(END)).toBe("ON_ALL_PREDS");
  });

  it("rejects a non-positive maxIterations", () => {
    expect(() => new Graph().addNode(node("a")).addEdge(START, "a").compile({ maxIterations: 0 })).toThrow(GraphConfigError);
  });

  it("re-binds persisted node identities", () => {
    const g = new Graph().addNode(node("a")).addEdge(START, "a").compile();
    const map = { ...g.nodeIdMap, a: "node_000000000000abcdefghijklmn" };
    const rebound = new Graph().addNode(node("a")).addEdge(START, "a").compile({ nodeIdMap: map });
    expect(rebound.nodeIdMap.a).toBe(map.a);
    expect(rebound.nodeIdMap[START]).toBe(g.nodeIdMap[START]);
  });

  it("exposes the routing error type", () => {
    expect(new DeliverRoutingError("a", "x").code).toBe("GRAPH_ROUTING");
  });
});
