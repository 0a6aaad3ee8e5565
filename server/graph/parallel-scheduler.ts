import { isPromise } from "./awaitable";
import type { CompiledGraph } from "./compiled-graph";
import type { GraphContext, NodeContext } from "./context";
import { GraphDrained, GraphRecursionError } from "./errors";
import { IntList } from "./int-list";
import { END, START } from "./names";
import { runNodeLifecycle, type LifecycleRun } from "./node-lifecycle";
import type { DeliverRow } from "./persistence/records";
import type { GraphRunControl } from "./run-control";
import { deliversResume, type OnRunEnd, type Scheduler, type SchedulerOutcome } from "./scheduler";

/**
 * Continuous, event-driven scheduling: a node instance starts the moment its dependencies are
 * satisfied, with no superstep barrier, so a fast branch never waits for a slow one.
 */
export class ParallelScheduler implements Scheduler {
  run(ctx: GraphContext, graph: CompiledGraph, seeds: readonly string[], onEnd: OnRunEnd): Promise<SchedulerOutcome> {
    return new ParallelRun(ctx, graph).run(seeds, onEnd);
  }
}

/**
 * Node instances go DORMANT → PENDING → READY → RUNNING → COMPLETED. Readiness of ON_ALL_PREDS is
 * kept incrementally: `blockers[t]` counts active (pending, ready or running) instances of other
 * nodes that can still reach `t`, so a join fires exactly when that count drops to zero. Each
 * activation or completion touches only the descendants of its node: linear in the graph's size.
 */
class ParallelRun {
  private readonly size: number;
  private readonly active: Int32Array;
  private readonly blockers: Int32Array;
  /**
   * Sequence number of the not-yet-started instance per node, or -1. At most one: it consumes all
   * rows. Its `name#seq` label is made when it starts, not while it waits.
   */
  private readonly pending: Int32Array;
  private readonly queuedReady: Uint8Array;
  private readonly seq: Int32Array;
  /** Sized for the graph: a node waits in it once at a time (`queuedReady`). */
  private readonly ready: IntList;
  private readyHead = 0;
  /**
   * Started instances in start order as node index and sequence number, index -1 once completed: a
   * queue indexed by start number (`runningBase` is the start number of slot 0), so a wide fan-out
   * costs no hash set, and no label string is kept per running branch (labels are made for a drain).
   */
  private readonly runningNodes: IntList;
  private readonly runningSeqs: IntList;
  private runningBase = 0;
  private runningHead = 0;
  private runningCount = 0;
  /** Settled instances not yet accounted for, as parallel lists: no object per completion. */
  private readonly completedIndex: IntList;
  private readonly completedSlot: IntList;
  /** Errors of failed ones by position in those lists: failures are rare. */
  private readonly completedError = new Map<number, unknown>();
  /** Nodes an external deliver woke while they ran: activated when their invocation ends. */
  private readonly wokenWhileRunning = new Set<number>();
  private wake: (() => void) | null = null;
  private iterations = 0;
  private reachedEnd = false;
  private failure: { error: unknown } | null = null;
  private finishing: string[] | null = null;
  private readonly endIndex: number;

  constructor(
    private readonly ctx: GraphContext,
    private readonly graph: CompiledGraph,
  ) {
    this.size = graph.topology.names.length;
    this.active = new Int32Array(this.size);
    this.blockers = new Int32Array(this.size);
    this.pending = new Int32Array(this.size).fill(-1);
    this.queuedReady = new Uint8Array(this.size);
    this.seq = new Int32Array(this.size);
    this.endIndex = graph.topology.index.get(END)!;
    this.ready = new IntList(this.size);
    this.runningNodes = new IntList(this.size);
    this.runningSeqs = new IntList(this.size);
    this.completedIndex = new IntList(this.size);
    this.completedSlot = new IntList(this.size);
    this.lifecycle = { ctx, layout: graph.layout, dispatch: this.dispatch };
  }

  async run(seeds: readonly string[], onEnd: OnRunEnd): Promise<SchedulerOutcome> {
    const unsubscribe = this.ctx.control?.onWake((node) => this.wakeExternal(node));
    try {
      return await this.loop(seeds, onEnd);
    } finally {
      unsubscribe?.();
    }
  }

  private async loop(seeds: readonly string[], onEnd: OnRunEnd): Promise<SchedulerOutcome> {
    for (const s of seeds) this.activate(this.graph.topology.index.get(s)!);
    for (;;) {
      this.startReady();
      if (this.runningCount === 0) {
        if (this.failure || this.finishing) break;
        if (!this.breakDeadlock()) break;
        continue;
      }
      if (this.completedIndex.length === 0) await new Promise<void>((r) => (this.wake = r));
      this.settleCompletions();
      // The last completions ended the run: end it in their stretch (see OnRunEnd). Otherwise one
      // yield per round of completions, as before.
      if (!this.over()) await undefined;
    }
    if (this.failure) throw this.failure.error;
    if (this.finishing) throw new GraphDrained(this.ctx.control!.request!, this.finishing);
    const outcome = { reachedEnd: this.reachedEnd, iterations: this.iterations };
    const ending = onEnd(outcome);
    if (isPromise(ending)) await ending;
    return outcome;
  }

  /** Nothing runs, is ready or waits, and nothing failed or drains: the loop would end without starting anything. */
  private over(): boolean {
    if (this.runningCount > 0 || this.failure || this.finishing || this.readyHead < this.ready.length) return false;
    for (let i = 0; i < this.size; i++) if (this.pending[i] !== -1) return false;
    return true;
  }

  /** A dispatch reached node `i`: give it a pending instance unless one is already waiting. */
  private activate(i: number): void {
    if (this.pending[i] !== -1) return;
    this.pending[i] = this.seq[i]++;
    this.changeActive(i, 1);
    this.maybeReady(i);
  }

  private changeActive(i: number, delta: 1 | -1): void {
    this.active[i] += delta;
    const desc = this.graph.topology.descendantsOf(i);
    for (let k = 0; k < desc.length; k++) {
      const d = desc[k];
      if (d === i) continue;
      this.blockers[d] += delta;
      if (delta < 0 && this.blockers[d] === 0) this.maybeReady(d);
    }
  }

  private maybeReady(i: number): void {
    if (this.pending[i] === -1 || this.queuedReady[i]) return;
    if (this.blockers[i] > 0 && this.graph.triggerModeAt(i) === "ON_ALL_PREDS") return;
    this.queuedReady[i] = 1;
    this.ready.push(i);
  }

  /** Safe point: nothing new starts after a failure, an interrupt or a pause/stop request. */
  private startReady(): void {
    while (this.readyHead < this.ready.length) {
      if (this.failure || this.finishing) return;
      const control = this.ctx.control;
      const request = control?.request;
      const next = this.ready.at(this.readyHead);
      if (request && !deliversResume(this.ctx, this.graph.topology.names[next])) {
        this.finishing = this.runningNow();
        return;
      }
      if (control !== undefined && control.holds && this.heldBefore(control, next)) {
        this.finishing = this.runningNow();
        return;
      }
      this.readyHead++;
      this.start(next);
    }
    this.ready.clear();
    this.readyHead = 0;
  }

  /**
   * A breakpoint or a step's end before node `i` (never START or END): the run drains as for a pause.
   * Never inside a subgraph's run (nested): its node is one step of the enclosing run.
   */
  private heldBefore(control: GraphRunControl, i: number): boolean {
    const name = this.graph.topology.names[i];
    return !this.ctx.nested && name !== START && name !== END && control.holdBefore(name);
  }

  private start(i: number): void {
    if (++this.iterations > this.graph.maxIterations) {
      this.failure = { error: new GraphRecursionError(this.graph.maxIterations) };
      return;
    }
    const seq = this.pending[i];
    this.pending[i] = -1;
    this.queuedReady[i] = 0;
    const slot = this.runningBase + this.runningNodes.length;
    this.runningNodes.push(i);
    this.runningSeqs.push(seq);
    this.runningCount++;
    this.execute(i, seq, slot);
  }

  /**
   * One node instance, start to settled; never throws (a failure is reported as a completion). A
   * lifecycle that ran synchronously completes here and now: no promise per branch.
   */
  private execute(index: number, seq: number, slot: number): void {
    let running;
    try {
      running = runNodeLifecycle(this.lifecycle, index, seq);
    } catch (error) {
      this.complete(index, slot, error);
      return;
    }
    if (!isPromise(running)) this.complete(index, slot, undefined);
    else {
      running.then(
        () => this.complete(index, slot, undefined),
        (error: unknown) => this.complete(index, slot, error),
      );
    }
  }

  /**
   * `activate` is idempotent while an instance waits, so repeated targets wake once. The node's own
   * outbox names its targets' positions exactly, so a wide fan-out's wakeups read no row; rows a
   * coordinator copied are found by the position they were delivered to when that still names the
   * row's target, else by name.
   */
  private readonly dispatch = (promoted: readonly DeliverRow[], from: NodeContext): void => {
    if (promoted === from.outbox) {
      for (let k = 0; k < promoted.length; k++) this.activate(from.targetAt(k));
      return;
    }
    const { names, index } = this.graph.topology;
    for (let k = 0; k < promoted.length; k++) {
      const t = from.targetAt(k);
      this.activate(t !== -1 && names[t] === promoted[k].targetNode ? t : index.get(promoted[k].targetNode)!);
    }
  };
  private readonly lifecycle: LifecycleRun;

  /**
   * An external deliver for `node` is in the ledger: schedule it and let the loop look again. A node
   * running now is scheduled once that invocation ends (as the linear scheduler does): started beside
   * itself, it would claim the inputs its running invocation holds (CONSUMED_PENDING rows stay
   * consumable, for recovery) and run on them twice.
   */
  private wakeExternal(node: string): void {
    const i = this.graph.topology.index.get(node);
    if (i === undefined) return;
    if (this.pending[i] === -1 && this.active[i] > 0) {
      this.wokenWhileRunning.add(i);
      return;
    }
    this.activate(i);
    this.poke();
  }

  private complete(index: number, slot: number, error: unknown): void {
    if (error !== undefined) this.completedError.set(this.completedIndex.length, error);
    this.completedIndex.push(index);
    this.completedSlot.push(slot);
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    if (w) {
      this.wake = null;
      w();
    }
  }

  private settleCompletions(): void {
    for (let k = 0; k < this.completedIndex.length; k++) {
      const index = this.completedIndex.at(k);
      const error = this.completedError.get(k);
      this.runningNodes.set(this.completedSlot.at(k) - this.runningBase, -1);
      this.runningCount--;
      if (error !== undefined) {
        // The first failure wins; in-flight siblings finish, nothing new starts.
        this.failure ??= { error };
      } else if (index === this.endIndex) {
        this.reachedEnd = true;
      }
      this.changeActive(index, -1);
      if (this.wokenWhileRunning.delete(index)) this.activate(index); // a no-op when it is pending again
    }
    this.completedIndex.clear();
    this.completedSlot.clear();
    this.completedError.clear();
    this.dropCompletedPrefix();
  }

  /** Advances past completed slots; compacts once the dead prefix is half the queue (amortized O(1)). */
  private dropCompletedPrefix(): void {
    const nodes = this.runningNodes;
    while (this.runningHead < nodes.length && nodes.at(this.runningHead) === -1) this.runningHead++;
    if (this.runningHead === nodes.length) {
      this.runningBase += nodes.length;
      nodes.clear();
      this.runningSeqs.clear();
      this.runningHead = 0;
    } else if (this.runningHead > nodes.length / 2) {
      this.runningBase += this.runningHead;
      nodes.dropFirst(this.runningHead);
      this.runningSeqs.dropFirst(this.runningHead);
      this.runningHead = 0;
    }
  }

  /** Labels of the instances still running, in start order. */
  private runningNow(): string[] {
    const out: string[] = [];
    for (let k = this.runningHead; k < this.runningNodes.length; k++) {
      const i = this.runningNodes.at(k);
      if (i !== -1) out.push(`${this.graph.topology.names[i]}#${this.runningSeqs.at(k)}`);
    }
    return out;
  }

  /**
   * Pending instances on a cycle can block each other forever. With nothing running, release the
   * earliest by topological rank. Returns false when no pending instance is left (the run is over).
   */
  private breakDeadlock(): boolean {
    let best = -1;
    for (let i = 0; i < this.size; i++) {
      if (this.pending[i] !== -1 && (best === -1 || this.graph.topology.rank[i] < this.graph.topology.rank[best])) best = i;
    }
    if (best === -1) return false;
    this.queuedReady[best] = 1;
    this.ready.push(best);
    return true;
  }
}
