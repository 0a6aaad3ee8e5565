import type { CompiledGraph } from "../../graph/compiled-graph";
import { Graph } from "../../graph/graph";
import { END, START } from "../../graph/names";
import { DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_TURNS } from "../state/turn-state";
import { AfterTurnNode } from "./nodes/after-turn-node";
import { BeforeTurnNode } from "./nodes/before-turn-node";
import { LlmNode } from "./nodes/llm-node";
import { ReactEndNode } from "./nodes/react-end-node";
import { ReactStartNode } from "./nodes/react-start-node";
import { ToolNode } from "./nodes/tool-node";
import { ReactGraphState } from "./react-graph-state";
import { ReactNode } from "./react-node-names";

export interface ReactGraphOptions {
  /** The business iteration limit per turn attempt (checked by LLM; reaching it is a normal result). */
  maxIterations?: number;
  /** The turn-attempt budget (continuations). */
  maxTurns?: number;
  /** Overrides the engine net (tests of the panic net only). */
  engineMaxIterations?: number;
}

/**
 * The engine's panic net for a ReAct graph: business_max × MAX_TURNS × 4 + 10 node executions. It always
 * exceeds business_max × MAX_TURNS, so the business limit (a normal MAX_ITERATIONS result) trips first;
 * exceeding the net raises GraphRecursionError, an abnormal exit.
 */
export function reactEngineNet(maxIterations: number, maxTurns: number): number {
  return maxIterations * maxTurns * 4 + 10;
}

/**
 * The ReAct agent as a graph of six nodes on the LinearScheduler. Edges only declare topology; each is
 * taken by a node's deliver(). `__start__ → START` and `END → __end__` are the two engine edges; an
 * approval resume jumps from `__start__` straight to TOOL via the engine's resume routing.
 */
export function buildReactGraph(options: ReactGraphOptions = {}): CompiledGraph<ReactGraphState> {
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const graph = new Graph({ name: "react", state: ReactGraphState })
    .addNode(new ReactStartNode())
    .addNode(new BeforeTurnNode())
    .addNode(new LlmNode())
    .addNode(new ToolNode())
    .addNode(new AfterTurnNode())
    .addNode(new ReactEndNode());
  const edges: [string, string][] = [
    [START, ReactNode.START],
    [ReactNode.START, ReactNode.BEFORE],
    [ReactNode.BEFORE, ReactNode.LLM],
    [ReactNode.LLM, ReactNode.TOOL],
    [ReactNode.LLM, ReactNode.AFTER],
    [ReactNode.TOOL, ReactNode.LLM],
    [ReactNode.TOOL, ReactNode.AFTER],
    [ReactNode.AFTER, ReactNode.BEFORE],
    [ReactNode.AFTER, ReactNode.END],
    [ReactNode.END, END],
  ];
  for (const [from, to] of edges) graph.addEdge(from, to);
  return graph.compile({ scheduler: "linear", maxIterations: options.engineMaxIterations ?? reactEngineNet(maxIterations, maxTurns) });
}

const compiled = new Map<string, CompiledGraph<ReactGraphState>>();

/**
 * The ReAct graph for these limits, compiled once per process: its nodes keep no per-run state (a run's
 * state is its context), so agents built per graph-node execution share it instead of compiling their own.
 */
export function sharedReactGraph(options: ReactGraphOptions = {}): CompiledGraph<ReactGraphState> {
  const key = `${options.maxIterations ?? DEFAULT_MAX_ITERATIONS}:${options.maxTurns ?? DEFAULT_MAX_TURNS}:${options.engineMaxIterations ?? ""}`;
  let graph = compiled.get(key);
  if (!graph) compiled.set(key, (graph = buildReactGraph(options)));
  return graph;
}
