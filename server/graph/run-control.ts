import type { DrainReason } from "./errors";

/**
 * Carries pause/stop requests into the scheduler. Requests are honoured at safe points (before a
 * node instance starts): in-flight nodes finish, no new node starts, progress is persisted, then the
 * scheduler raises `GraphDrained`. Stop outranks pause. It also carries wakeups for delivers that
 * arrived from outside the run (DELIVER_TO_NODE): the content is already in the ledger; the wakeup
 * only tells a running scheduler to schedule the target.
 */
export class GraphRunControl {
  private requested: DrainReason | null = null;
  private readonly breakpoints = new Set<string>();
  private readonly passing = new Set<string>();
  /** Nodes that may still start before the run holds again (Step: 1); null: no stepping. */
  private stepBudget: number | null = null;
  /** The node the run paused before (a breakpoint or the end of a step), if that is why it drained. */
  heldAt: string | null = null;
  private readonly listeners = new Set<(reason: DrainReason) => void>();
  private readonly wakeListeners = new Set<(node: string) => void>();

  get request(): DrainReason | null {
    return this.requested;
  }

  requestPause(): void {
    if (this.requested === null) this.set("pause");
  }

  requestStop(): void {
    if (this.requested !== "stop") this.set("stop");
  }

  /** Clears a request, e.g. before resuming a drained run with the same handle. */
  reset(): void {
    this.requested = null;
  }

  /** Breakpoints: the run pauses before any of these nodes starts (see `holdBefore`). */
  setBreakpoints(nodes: Iterable<string>): void {
    this.breakpoints.clear();
    for (const n of nodes) this.breakpoints.add(n);
  }

  /** Continue: `node` (the one the run held before) starts once despite its breakpoint. */
  passOnce(node: string): void {
    this.passing.add(node);
  }

  /** Step: the next `count` node starts happen, then the run holds before the one after. */
  step(count = 1): void {
    this.stepBudget = count;
  }

  /** True while a breakpoint or a step is set: schedulers ask `holdBefore` only then. */
  get holds(): boolean {
    return this.breakpoints.size > 0 || this.stepBudget !== null;
  }

  /**
   * Asked by schedulers right before a node instance starts. True: it must not start; a pause is
   * requested (the run drains as for Pause) and `heldAt` names the node.
   */
  holdBefore(node: string): boolean {
    if (this.breakpoints.has(node) && !this.passing.delete(node)) return this.hold(node);
    if (this.stepBudget !== null) {
      if (this.stepBudget === 0) return this.hold(node);
      this.stepBudget--;
    }
    return false;
  }

  private hold(node: string): boolean {
    this.heldAt = node;
    this.requestPause();
    return true;
  }

  onRequest(listener: (reason: DrainReason) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Wakes `node` in the run using this handle. Returns false when no scheduler is listening (the run
   * has ended or not started): the caller must then start a recovery run to consume the deliver.
   */
  wake(node: string): boolean {
    for (const l of this.wakeListeners) l(node);
    return this.wakeListeners.size > 0;
  }

  /** For schedulers: subscribe to external wakeups for the duration of a run. */
  onWake(listener: (node: string) => void): () => void {
    this.wakeListeners.add(listener);
    return () => this.wakeListeners.delete(listener);
  }

  private set(reason: DrainReason): void {
    this.requested = reason;
    for (const l of this.listeners) l(reason);
  }
}
