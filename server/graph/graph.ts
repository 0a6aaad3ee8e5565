import { CompiledGraph } from "./compiled-graph";
import { EndNode } from "./end-node";
import { GraphConfigError, TopologyError } from "./errors";
import { END, START } from "./names";
import type { Node, TriggerMode } from "./node";
import type { SchedulerKind } from "./scheduler";
import { StartNode } from "./start-node";
import { EmptyGraphState, type GraphStateSchema } from "./state";
import { validateTopology } from "./topology-validator";

export interface CompileOptions {
  /** linear (default) runs one node at a time; parallel runs fan-out branches concurrently. */
  scheduler?: SchedulerKind;
  /** Panic net: node executions per run before GraphRecursionError. */
  maxIterations?: number;
  /** Persisted identities to re-bind (name → node id), as frozen in an instance's node_id_map. */
  nodeIdMap?: Readonly<Record<string, string>>;
  /** Receives non-fatal findings, such as the ON_RECEIVE deprecation. */
  onWarning?: (message: string) => void;
}

export const DEFAULT_MAX_ITERATIONS = 10_000;

/**
 * Registers nodes and topology edges. Edges say which nodes may connect, nothing more: routing is
 * decided at run time by `deliver`. START and END are real nodes, registered on construction.
 */
export class Graph<S extends GraphStateSchema = typeof EmptyGraphState> {
  readonly name: string;
  readonly stateSchema: S;
  private readonly nodes = new Map<string, Node<S>>();
  private readonly duplicates: string[] = [];
  private readonly edges: [string, string][] = [];

  constructor(options: { name?: string; state?: S } = {}) {
    this.name = options.name ?? "graph";
    this.stateSchema = options.state ?? (EmptyGraphState as unknown as S);
    this.nodes.set(START, new StartNode() as unknown as Node<S>);
    this.nodes.set(END, new EndNode() as unknown as Node<S>);
  }

  addNode(node: Node<S>): this {
    if (this.nodes.has(node.name)) this.duplicates.push(node.name);
    else this.nodes.set(node.name, node);
    return this;
  }

  addEdge(from: string, to: string): this {
    this.edges.push([from, to]);
    return this;
  }

  /** Validates the topology and freezes the graph. Throws TopologyError listing every issue. */
  compile(options: CompileOptions = {}): CompiledGraph<S> {
    const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    if (!Number.isInteger(maxIterations) || maxIterations < 1) {
      throw new GraphConfigError(`maxIterations must be a positive integer, got ${maxIterations}`);
    }
    const nodes = [...this.nodes.values()];
    const triggerModes = new Map<string, TriggerMode>(nodes.map((n) => [n.name, n.name === END ? "ON_ALL_PREDS" : n.triggerMode]));
    const report = validateTopology({ names: nodes.map((n) => n.name), duplicates: this.duplicates, edges: this.edges, triggerModes });
    if (report.issues.length > 0) throw new TopologyError(report.issues);
    for (const w of report.warnings) options.onWarning?.(w);
    const compiled = new CompiledGraph<S>({
      name: this.name,
      stateSchema: this.stateSchema,
      nodes,
      topology: report.topology,
      triggerModes: nodes.map((n) => triggerModes.get(n.name)!),
      nodeIds: nodes.map((n) => n.id),
      schedulerKind: options.scheduler ?? "linear",
      maxIterations,
      warnings: report.warnings,
    });
    return options.nodeIdMap ? compiled.withNodeIds(options.nodeIdMap) : compiled;
  }
}
