import { describe, expect, it } from "vitest";
import { END, START } from "../../graph/names";
import { buildReactGraph, reactEngineNet } from "./build-react-graph";
import { ReactNode } from "./react-node-names";

describe("buildReactGraph", () => {
  it("has the six ReAct nodes between the engine's own entry and exit, on the linear scheduler", () => {
    const graph = buildReactGraph();
    expect([...graph.nodeNames()].sort()).toEqual([START, END, ...Object.values(ReactNode)].sort());
    expect(graph.schedulerKind).toBe("linear");
    expect(graph.topology.successorsOf(START)).toEqual([ReactNode.START]);
    expect(graph.topology.successorsOf(ReactNode.END)).toEqual([END]);
    expect([...graph.topology.successorsOf(ReactNode.LLM)].sort()).toEqual([ReactNode.AFTER, ReactNode.TOOL]);
    expect([...graph.topology.successorsOf(ReactNode.AFTER)].sort()).toEqual([ReactNode.BEFORE, ReactNode.END]);
  });

  it("compiles the engine net from the business limit and the turn budget", () => {
    expect(buildReactGraph({ maxIterations: 25, maxTurns: 3 }).maxIterations).toBe(reactEngineNet(25, 3));
    expect(buildReactGraph().maxIterations).toBe(reactEngineNet(25, 1));
  });

  it("the net always exceeds business_max × MAX_TURNS", () => {
    const violations: string[] = [];
    for (let b = 1; b <= 100; b++) for (let t = 1; t <= 10; t++) if (reactEngineNet(b, t) <= b * t) violations.push(`${b}×${t}`);
    expect(violations).toEqual([]);
  });
});
