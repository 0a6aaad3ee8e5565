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
    const { nodes, names, modes, ids } = this.columns();
    const report = validateTopology({ names, duplicates: this.duplicates, edges: this.edges, triggerModes: modes });
    if (report.issues.length > 0) throw new TopologyError(report.issues);
    for (const w of report.warnings) options.onWarning?.(w);
    const compiled = new CompiledGraph<S>({
      name: this.name,
      stateSchema: this.stateSchema,
      nodes,
      topology: report.topology,
      triggerModes: modes,
      nodeIds: ids,
      schedulerKind: options.scheduler ?? "linear",
      maxIterations,
      warnings: report.warnings,
    });
    return options.nodeIdMap ? compiled.withNodeIds(options.nodeIdMap) : compiled;
  }

  /**
   * The registered nodes with their names, trigger modes and ids, by position. One pass with no
   * pair per node: compile runs once, in the interpreter, where those are garbage per node.
   */
  private columns() {
    const nodes: Node<S>[] = [];
    this.nodes.forEach((node) => nodes.push(node));
    const names = new Array<string>(nodes.length);
    const modes = new Array<TriggerMode>(nodes.length);
    const ids = new Array<string>(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      names[i] = nodes[i].name;
      // END is always ON_ALL_PREDS, whatever node a graph registered under its name.
      modes[i] = names[i] === END ? "ON_ALL_PREDS" : nodes[i].triggerMode;
      ids[i] = nodes[i].id;
    }
    return { nodes, names, modes, ids };
  }
}
