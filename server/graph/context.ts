import { DeliverRoutingError, GraphInterrupt, type StateValidationError } from "./errors";
import type { EngineObserver } from "./events";
import { DeliveredRow } from "./delivered-row";
import { newSnowflake } from "./ids";
import { IntList } from "./int-list";
import type { GraphLayout } from "./graph-layout";
import type { OwedRetry } from "./node-policy";
import type { GraphPayload } from "./payload";
import type { Awaitable } from "./awaitable";
import type { GraphPersistenceCoordinator } from "./persistence/coordinator";
import type { DeliverRow, GraphInstanceRecord, NewDeliverRow, NodeInvocation } from "./persistence/records";
import type { GraphRunControl } from "./run-control";
import type { GraphRuntime } from "./runtime";
import type { GraphStateSchema, StateOf } from "./state";
import type { StateFields } from "./state-fields";
import { StateWriteTracker } from "./state-write-tracker";
import type { Topology } from "./topology";

/** The outbox before a first deliver: shared, so a node that delivers nothing allocates no list. */
const NO_ROWS = Object.freeze([]) as unknown as NewDeliverRow[];

export type BootstrapMode = "fresh" | "recovery";

/**
 * What one graph run shares across all of its node instances: the state, the input, persistence,
 * control and observation. Nodes running in parallel each get a `NodeContext` shell over this.
 */
export interface GraphContext<S extends GraphStateSchema = GraphStateSchema> {
  state: StateOf<S>;
  userInput: GraphPayload;
  instanceId: string;
  version: number;
  readonly coordinator: GraphPersistenceCoordinator;
  readonly observer: EngineObserver | undefined;
  readonly control: GraphRunControl | undefined;
  readonly runtime: GraphRuntime;
  readonly userData: Record<string, unknown>;
  /**
   * Set by `resume(value)`: the answer START hands to the resume target. Absent in a run that is not a
   * resume (crash recovery, a fork), which has no answer to hand on: the suspended node then runs again.
   */
  resume: { readonly value: unknown } | undefined;
  readonly signal: AbortSignal | undefined;
  /** True while the context is driven by an enclosing graph (subgraph run). */
  nested: boolean;
  mode: BootstrapMode;
  /**
   * Retries owed from before this run, by node name: the node's next execution waits out the rest of
   * its backoff and counts on from the attempt that failed. Taken (deleted) by that execution.
   */
  owedRetries?: Map<string, OwedRetry>;
  /** See ContextOptions.beforeInterruptPause. */
  readonly beforeInterruptPause?: BeforeInterruptPause;
  /** See ContextOptions.instance; taken by the run's start. */
  current?: GraphInstanceRecord;
  /** A stored state the schema refused (ContextOptions.storedState): the run fails with it once the instance is entered. */
  readonly stateError?: StateValidationError;
  /** The run's state schema by field: each node's writes are checked against it when it completes. */
  readonly stateFields?: StateFields;
  /**
   * Field → running node executions that touched it (see StateWriteTracker); shared with subgraph runs.
   * Only a parallel run has one: on the linear scheduler one node runs at a time.
   */
  readonly liveWrites?: Map<string, number>;
  /**
   * Set when a node's failure left a field its schema refuses and that could not be put back (changed in
   * place): from then on the run stores no state, so its store keeps the last one that fit.
   */
  stateSpoiled?: boolean;
}

/**
 * Awaited once an interrupt's state is saved and before the instance moves to PAUSED: what the caller
 * keeps about the wait (the app: the instance's `waiting_for`) is written first, so no reader, in this
 * process or another, sees the instance PAUSED without it. A rejection fails the run; the instance is
 * left RUNNING (recovery runs the interrupting node again).
 */
export type BeforeInterruptPause = (interrupt: { node: string; value: unknown }) => Awaitable<void>;

/** Addressing a node needs while it delivers: which nodes exist, which edges leave it. */
export interface NodeBinding {
  readonly name: string;
  /** Position in `topology`: spares a lookup by name on every deliver. */
  readonly index: number;
  readonly nodeId: string;
  readonly topology: Topology;
  /** Node ids by position in `topology`. */
  readonly nodeIds: readonly string[];
  /** Node id → position in `topology`: the inverse of `nodeIds`, one map per compiled graph. */
  readonly positions: ReadonlyMap<string, number>;
}

/**
 * The per-invocation shell a node's `execute` receives. State is shared with every other shell.
 *
 * It is made before its invocation is opened, and opens it: as the coordinator's begin arguments
 * (instanceId, nodeId, nodeName), so a node execution costs no argument object of its own. A wide
 * fan-out runs thousands at once, and every object per execution is young garbage a collection may
 * have to copy.
 */
export class NodeContext<S extends GraphStateSchema = GraphStateSchema> implements NodeBinding {
  /**
   * Rows delivered during `execute`; staged and promoted when the invocation completes. Starts as
   * a shared empty list and is replaced, not grown, by the first deliver: most nodes deliver once,
   * and a push into an empty array reserves 17 slots. Only `deliver` adds to it and only
   * `discardDelivers` empties it, so `targetAt` is exact for its rows.
   */
  private rows: NewDeliverRow[] = NO_ROWS;
  /** The topology position of the first outbox row's target; the later rows' follow in `laterTargets`. */
  private firstTarget = -1;
  /** Off the heap once long: young collections need not copy a wide fan-out's 10,000 of them. */
  private laterTargets: IntList | null = null;
  /**
   * The slot in this node's successor list that its last deliver named, or -1: a node that names its
   * successors in the order they were declared (a fan-out's loop) finds each with one comparison,
   * where a lookup by name probes a map with an entry per node of the graph, out of cache when wide.
   */
  private successorCursor = -1;
  private opened: NodeInvocation | null = null;
  /** What this execution touched in the state; made on its first `state`. */
  private writes: StateWriteTracker | null = null;

  constructor(
    readonly graph: GraphContext<S>,
    private readonly layout: GraphLayout,
    /** The node's position in its compiled graph. */
    readonly index: number,
    /** This node's execution number in the run (from 0): the `#n` of its label. */
    readonly seq: number,
  ) {}

  /** Where the node sits in its graph: the context itself, so a graph keeps no binding object per node. */
  get binding(): NodeBinding {
    return this;
  }
  get name(): string {
    return this.layout.topology.names[this.index];
  }
  get topology(): Topology {
    return this.layout.topology;
  }
  get nodeIds(): readonly string[] {
    return this.layout.nodeIds;
  }
  get positions(): ReadonlyMap<string, number> {
    return this.layout.positions;
  }

  /** The description (role) the spec gives the node named `name` in this graph, if any. */
  describe(name: string): string | undefined {
    const i = this.layout.topology.index.get(name);
    return i === undefined ? undefined : this.layout.nodes[i]?.description;
  }

  /** The open invocation; set by the lifecycle before `execute`. */
  get invocation(): NodeInvocation {
    return this.opened!;
  }

  /** For the lifecycle only: the invocation this context now runs in. */
  bind(invocation: NodeInvocation): void {
    this.opened = invocation;
  }

  /** The node instance label, `name#seq`, made when asked: events and drains ask, a plain run does not. */
  get nodeInstance(): string {
    return `${this.name}#${this.seq}`;
  }

  get instanceId(): string {
    return this.graph.instanceId;
  }
  get nodeId(): string {
    return this.layout.nodeIds[this.index];
  }
  get nodeName(): string {
    return this.name;
  }

  /**
   * The shared state, seen through this execution's write tracker: the fields the node writes are
   * checked against their schema when it completes (the engine's own writes go to `graph.state`).
   */
  get state(): StateOf<S> {
    const graph = this.graph;
    if (graph.stateFields === undefined) return graph.state;
    return (this.writes ??= new StateWriteTracker(graph.state, graph.liveWrites)).proxy as StateOf<S>;
  }

  /** For the lifecycle only: what this execution touched in the state, or null when it never read it. */
  get stateWrites(): StateWriteTracker | null {
    return this.writes;
  }
  get userInput(): GraphPayload {
    return this.graph.userInput;
  }
  get runtime(): GraphRuntime {
    return this.graph.runtime;
  }
  get signal(): AbortSignal | undefined {
    return this.graph.signal;
  }

  /**
   * Hands `content` to `nextNode`. `null` resolves through topology: the single downstream edge,
   * or END when the node has none. Several downstream edges without a named target is an error:
   * unconditional fan-out would loop forever.
   */
  deliver(content: unknown, nextNode: string | null = null): string {
    const t = this.targetOf(nextNode);
    this.deliverAt(content, t);
    return this.layout.topology.names[t];
  }

  /** For the entry node's resume routing, which jumps to a node it has no edge to. */
  deliverUnchecked(content: unknown, target: string): void {
    const t = this.layout.topology.index.get(target);
    if (t === undefined) throw new DeliverRoutingError(this.name, `unknown deliver target "${target}"`);
    this.deliverAt(content, t);
  }

  /** Stages a row for the node at position `t` in the topology. */
  private deliverAt(content: unknown, t: number): void {
    // The registered name, not the caller's copy: a row in flight keeps no string of its own.
    const now = Date.now();
    const row = new DeliveredRow(
      newSnowflake(now),
      this.graph.instanceId,
      this.name,
      this.nodeId,
      this.invocation.invocationId,
      this.layout.topology.names[t],
      this.layout.nodeIds[t],
      content,
      now,
    );
    if (this.rows.length === 0) {
      this.rows = [row];
      this.firstTarget = t;
      this.laterTargets = null;
    } else {
      this.rows.push(row);
      (this.laterTargets ??= new IntList(8)).push(t);
    }
  }

  /**
   * What this node delivered so far, in order: engine-built PENDING snapshots. A mailbox and a
   * scheduler given this very list address its rows by `targetAt` and never read them: a wide
   * fan-out's 10,000 rows are out of cache by the time its completion files and wakes them.
   */
  get outbox(): readonly NewDeliverRow[] {
    return this.rows;
  }

  /** Drops what this node delivered so far (a failure route that delivers elsewhere instead). */
  discardDelivers(): void {
    this.rows = NO_ROWS;
    this.firstTarget = -1;
    this.laterTargets = null;
  }

  /** The topology position of the target of `outbox` row `k`, as it was delivered, or -1 past its end. */
  targetAt(k: number): number {
    if (k === 0) return this.firstTarget;
    const later = this.laterTargets;
    return later !== null && k <= later.length ? later.at(k - 1) : -1;
  }

  /**
   * Suspends the run: records where to re-enter, then raises `GraphInterrupt` with `value`.
   * The current invocation is cancelled; on resume the entry node routes straight back here.
   */
  interrupt(value: unknown): never {
    this.graph.state.resumeTarget = this.name;
    throw new GraphInterrupt(value, this.name);
  }

  /** The position of the node `nextNode` names, or of the single downstream one when it is null. */
  private targetOf(nextNode: string | null): number {
    const { topology, index, name } = this;
    if (nextNode !== null) {
      const successors = topology.successorIndicesAt(index);
      const slot = this.successorCursor + 1;
      if (slot < successors.length && topology.names[successors[slot]] === nextNode) {
        this.successorCursor = slot;
        return successors[slot];
      }
      const t = topology.index.get(nextNode);
      if (t === undefined || !topology.hasEdgeBetween(index, t)) {
        throw new DeliverRoutingError(name, `"${name}" has no edge to "${nextNode}"`);
      }
      return t;
    }
    const successors = topology.successorIndicesAt(index);
    if (successors.length === 1) return successors[0];
    throw new DeliverRoutingError(
      name,
      `"${name}" has ${successors.length} downstream edges (${topology.successorsAt(index).join(", ")}); name the target`,
    );
  }
}
