import type { z } from "zod";
import type { OwedRetry } from "./node-policy";
import type { BeforeInterruptPause, BootstrapMode, GraphContext, NodeContext } from "./context";
import { GraphEngine, type RunResult } from "./engine";
import { GraphLayout } from "./graph-layout";
import { StateValidationError, SubgraphError, isGraphInterrupt } from "./errors";
import type { EngineObserver } from "./events";
import { Node, type DeliveredInput, type TriggerMode } from "./node";
import { isResumeSignal, toGraphPayload, type GraphPayload } from "./payload";
import type { GraphPersistenceCoordinator } from "./persistence/coordinator";
import { createNullCoordinator } from "./persistence/factories";
import type { GraphInstanceRecord } from "./persistence/records";
import type { GraphRunControl } from "./run-control";
import { NOOP_RUNTIME, type GraphRuntime } from "./runtime";
import type { SchedulerKind } from "./scheduler";
import type { GraphStateSchema, StateOf } from "./state";
import { StateFields } from "./state-fields";
import type { Topology } from "./topology";

export interface ContextOptions<S extends GraphStateSchema> {
  /** The graph input; anything that is not already a GraphPayload becomes `{ content: input }`. */
  input?: unknown;
  state?: Partial<z.input<S>>;
  instanceId?: string;
  coordinator?: GraphPersistenceCoordinator;
  observer?: EngineObserver;
  control?: GraphRunControl;
  runtime?: GraphRuntime;
  userData?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Retries a node owes from before this run (a restart or a pause during its backoff); see OwedRetry. */
  owedRetries?: ReadonlyMap<string, OwedRetry>;
  /** Writes what an interrupted run waits for before its PAUSED status (see BeforeInterruptPause). */
  beforeInterruptPause?: BeforeInterruptPause;
  /**
   * The instance (`instanceId`) as its owner read it just before this run, where nothing else changes
   * its status or version until the run starts (a worker holding its lease): the run starts from it
   * instead of reading it again.
   */
  instance?: GraphInstanceRecord;
  /**
   * `state` was stored by an earlier run of the instance: when the schema refuses it, the run this
   * context starts fails with StateValidationError (the instance FAILED, saying which field) instead of
   * createContext throwing before the instance leaves its status, which left a paused run paused for ever.
   */
  storedState?: boolean;
}

export interface CompiledGraphInit<S extends GraphStateSchema> {
  name: string;
  stateSchema: S;
  nodes: readonly Node<S>[];
  topology: Topology;
  triggerModes: readonly TriggerMode[];
  nodeIds: readonly string[];
  schedulerKind: SchedulerKind;
  maxIterations: number;
  warnings: readonly string[];
}

/** What the completion signal of an embedded graph delivers downstream. */
export interface SubgraphCompletion {
  readonly subgraph: string;
  readonly result: readonly GraphPayload[];
}

/**
 * The immutable product of `Graph.compile()`. It is itself a Node: embedded in an outer graph it
 * runs its own engine loop on the shared context and delivers a completion signal downstream.
 */
export class CompiledGraph<S extends GraphStateSchema = GraphStateSchema> extends Node<S> {
  readonly stateSchema: S;
  readonly topology: Topology;
  readonly schedulerKind: SchedulerKind;
  readonly maxIterations: number;
  readonly warnings: readonly string[];
  /** Name → node id. Subgraph nodes contribute their own maps under `name/`. */
  readonly nodeIdMap: Readonly<Record<string, string>>;
  private readonly init: CompiledGraphInit<S>;
  /** Nodes, topology and node ids by position: what each node execution's context addresses. */
  readonly layout: GraphLayout;
  /** The state schema by field: what a run of this graph checks its nodes' writes against. */
  readonly stateFields: StateFields;

  constructor(init: CompiledGraphInit<S>) {
    super(init.name);
    this.init = init;
    this.stateSchema = init.stateSchema;
    this.topology = init.topology;
    this.schedulerKind = init.schedulerKind;
    this.maxIterations = init.maxIterations;
    this.warnings = Object.freeze([...init.warnings]);
    this.layout = new GraphLayout(init.topology, init.nodeIds, init.nodes);
    this.nodeIdMap = Object.freeze(buildNodeIdMap(init));
    this.stateFields = new StateFields(init.stateSchema);
    Object.freeze(this);
  }

  /** The node registered as `name`. */
  node(name: string): Node<S> {
    return this.init.nodes[this.topology.index.get(name)!];
  }
  triggerModeOf(name: string): TriggerMode {
    return this.init.triggerModes[this.topology.index.get(name)!];
  }
  triggerModeAt(i: number): TriggerMode {
    return this.init.triggerModes[i];
  }
  nameOfId(nodeId: string): string | undefined {
    const i = this.layout.positions.get(nodeId);
    return i === undefined ? undefined : this.topology.names[i];
  }
  nodeNames(): readonly string[] {
    return this.topology.names;
  }

  /** The same graph with persisted identities re-bound (recovery and re-invocation address old rows). */
  withNodeIds(map: Readonly<Record<string, string>>): CompiledGraph<S> {
    const nodeIds = this.topology.names.map((n, i) => map[n] ?? this.init.nodeIds[i]);
    const nodes = this.init.nodes.map((node) => rebindEmbedded(node, map));
    return new CompiledGraph({ ...this.init, nodes, nodeIds });
  }

  createContext(options: ContextOptions<S> = {}): GraphContext<S> {
    const { state, stateError } = this.initialState(options);
    return {
      state,
      ...(stateError ? { stateError } : {}),
      stateFields: this.stateFields,
      ...(this.schedulerKind === "parallel" ? { liveWrites: new Map<string, number>() } : {}),
      userInput: toGraphPayload(options.input ?? null),
      instanceId: options.instanceId ?? "",
      version: 0,
      coordinator: options.coordinator ?? createNullCoordinator(),
      observer: options.observer,
      control: options.control,
      runtime: options.runtime ?? NOOP_RUNTIME,
      userData: options.userData ?? {},
      resume: undefined,
      signal: options.signal,
      nested: false,
      mode: "fresh",
      ...(options.owedRetries && options.owedRetries.size > 0 ? { owedRetries: new Map(options.owedRetries) } : {}),
      ...(options.beforeInterruptPause ? { beforeInterruptPause: options.beforeInterruptPause } : {}),
      ...(options.instance ? { current: options.instance } : {}),
    };
  }

  /** The state a context starts from: parsed (defaults filled in), or a stored state the schema refuses with why. */
  private initialState(options: ContextOptions<S>): { state: StateOf<S>; stateError?: StateValidationError } {
    if (!options.storedState) return { state: this.stateSchema.parse(options.state ?? {}) as StateOf<S> };
    const parsed = this.stateSchema.safeParse(options.state ?? {});
    if (parsed.success) return { state: parsed.data as StateOf<S> };
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(state)"}: ${i.message}`);
    const field = String(parsed.error.issues[0]?.path[0] ?? "");
    return {
      state: options.state as StateOf<S>,
      stateError: new StateValidationError(field, `the stored state does not fit the graph's state schema: ${issues.join("; ")}`),
    };
  }

  run(ctx: GraphContext<S>, mode?: BootstrapMode): Promise<RunResult> {
    return new GraphEngine(this as unknown as CompiledGraph).run(ctx as unknown as GraphContext, mode);
  }

  /** Creates a context and runs the graph from its entry. */
  async invoke(input: unknown, options: Omit<ContextOptions<S>, "input"> = {}) {
    const ctx = this.createContext({ ...options, input });
    return { ctx, result: await this.run(ctx, "fresh") };
  }

  /**
   * Resumes an interrupted or paused run; the entry node routes straight to the resume target. An
   * interrupted run's answer is saved with the state first (`resumeWith`), so a crash before the entry
   * node commits is recovered with it.
   */
  async resume(ctx: GraphContext<S>, value?: unknown): Promise<RunResult> {
    ctx.resume = { value };
    ctx.control?.reset();
    if (ctx.state.resumeTarget) {
      ctx.state.resumeWith = { value };
      await ctx.coordinator.checkpointState(ctx.instanceId, ctx.state);
    }
    return this.run(ctx, "recovery");
  }

  /** As a node: run the inner graph on the shared state, deliver its result as the completion signal. */
  async execute(ctx: NodeContext<S>, input: readonly DeliveredInput[]): Promise<void> {
    const outer = ctx.graph;
    const resume = input.find((i) => isResumeSignal(i.content));
    const content = input.length === 1 ? input[0].content : input.map((i) => i.content);
    const inner: GraphContext<S> = {
      ...outer,
      userInput: toGraphPayload(content, ctx.binding.name),
      resume: resume && isResumeSignal(resume.content) ? { value: resume.content.value } : undefined,
      nested: true,
      // Only branches running side by side need it: one map for the whole run, made by its first parallel graph.
      liveWrites: outer.liveWrites ?? (this.schedulerKind === "parallel" ? new Map<string, number>() : undefined),
    };
    const outerResult = outer.state.result;
    outer.state.result = [];
    let run: RunResult;
    try {
      run = await this.run(inner, resume ? "recovery" : outer.mode);
    } catch (error) {
      if (isGraphInterrupt(error)) outer.state.resumeTarget = `${ctx.binding.name}/${outer.state.resumeTarget}`;
      throw error;
    } finally {
      outer.state.result = outerResult;
    }
    if (!run.reachedEnd) throw new SubgraphError(ctx.binding.name);
    const completion: SubgraphCompletion = { subgraph: this.name, result: run.result };
    ctx.deliver(completion, null);
  }
}

function buildNodeIdMap<S extends GraphStateSchema>(init: CompiledGraphInit<S>): Record<string, string> {
  const map: Record<string, string> = {};
  init.topology.names.forEach((name, i) => {
    map[name] = init.nodeIds[i];
    const inner = embeddedGraph(init.nodes[i]);
    if (inner) for (const [k, v] of Object.entries(inner.nodeIdMap)) map[`${name}/${k}`] = v;
  });
  return map;
}

/** The compiled graph a node embeds, if it is one (directly or through GraphAsNode). */
export function embeddedGraph(node: object): CompiledGraph<any> | null {
  if (node instanceof CompiledGraph) return node;
  const inner = (node as { embedded?: unknown }).embedded;
  return inner instanceof CompiledGraph ? inner : null;
}

function rebindEmbedded<S extends GraphStateSchema>(node: Node<S>, map: Readonly<Record<string, string>>): Node<S> {
  const inner = embeddedGraph(node);
  if (!inner) return node;
  const prefix = `${node.name}/`;
  const sub = Object.fromEntries(
    Object.entries(map).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]),
  );
  const rebound = inner.withNodeIds(sub);
  return (node as { rebind?: (g: CompiledGraph<any>) => Node<S> }).rebind?.(rebound) ?? (rebound as unknown as Node<S>);
}
