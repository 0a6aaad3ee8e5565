import { chain, isPromise, type Awaitable } from "../awaitable";
import type { DeliverStore } from "./deliver-store";
import type { GraphInstanceStore } from "./instance-store";
import type { NodeStateStore } from "./node-state-store";
import type { DeliverRow, NewDeliverRow, NodeInvocation } from "./records";

export interface OpenedInvocation {
  invocation: NodeInvocation;
  /** Consumable rows (PENDING, or CONSUMED_PENDING re-offered after a crash), now claimed. */
  inputs: DeliverRow[];
}

export interface RecoveryScan {
  /** Node ids whose RUNNING invocations were orphaned by a crash (now marked CRASHED). */
  orphanedNodeIds: string[];
  /** Node ids with PENDING or re-offerable CONSUMED_PENDING delivers waiting for them. */
  pendingNodeIds: string[];
}

/**
 * Coordinates the three stores through a node's lifecycle. The engine talks to this class only;
 * a durable implementation may override a step to run it in one transaction, as long as the
 * observable ledger states stay the same. Lifecycle steps return synchronously when the stores do.
 */
export class GraphPersistenceCoordinator {
  constructor(
    readonly instances: GraphInstanceStore,
    readonly nodes: NodeStateStore,
    readonly delivers: DeliverStore,
  ) {}

  /** Begin invocation, then integrate: collect consumable rows and mark them consumed. */
  openInvocation(args: { instanceId: string; nodeId: string; nodeName: string }): Awaitable<OpenedInvocation> {
    // Written without `chain` closures: this runs once per node execution and synchronous stores
    // (in-memory, SQLite) should cost no allocation beyond their own records.
    const begun = this.nodes.begin(args);
    return isPromise(begun) ? begun.then((inv) => this.claimInputs(args, inv)) : this.claimInputs(args, begun);
  }

  private claimInputs(args: { instanceId: string; nodeId: string }, invocation: NodeInvocation): Awaitable<OpenedInvocation> {
    const found = this.delivers.consumable(args.instanceId, args.nodeId);
    if (isPromise(found)) return found.then((inputs) => this.markClaimed(invocation, inputs));
    return this.markClaimed(invocation, found);
  }

  private markClaimed(invocation: NodeInvocation, inputs: DeliverRow[]): Awaitable<OpenedInvocation> {
    const opened = { invocation, inputs };
    if (inputs.length === 0) return opened;
    const ids = inputs.length === 1 ? [inputs[0].deliverId] : inputs.map((r) => r.deliverId);
    const marked = this.delivers.markConsumed(ids, invocation.invocationId);
    return isPromise(marked) ? marked.then(() => opened) : opened;
  }

  /**
   * Complete the invocation (compare-and-swap), then promote its staged outputs. Rows are staged
   * before completion so a crash between the two leaves the window recovery knows how to close.
   * Returns the promoted rows: the scheduler dispatches wakeups from them. `state` is the shared
   * graph state after the node ran; durable coordinators persist it in the same step.
   */
  completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], _state?: unknown): Awaitable<DeliverRow[]> {
    // Like openInvocation: closures only when a store is actually asynchronous.
    if (outbox.length === 0) return chain(this.nodes.complete(invocation.invocationId), noRows);
    const staging = this.delivers.stage(outbox);
    if (isPromise(staging)) return staging.then(() => this.completeStaged(invocation.invocationId));
    return this.completeStaged(invocation.invocationId);
  }

  private completeStaged(id: string): Awaitable<DeliverRow[]> {
    const completed = this.nodes.complete(id);
    if (isPromise(completed)) return completed.then(() => this.delivers.promoteStaged(id));
    return this.delivers.promoteStaged(id);
  }

  /** Last lifecycle step, after wakeups were dispatched: consumed inputs become terminal. */
  promoteConsumed(invocation: NodeInvocation): Awaitable<void> {
    return this.delivers.promoteConsumed(invocation.invocationId);
  }

  /** An interrupt or drain cancelled the invocation; its inputs stay consumable for the retry. */
  cancelInvocation(invocation: NodeInvocation, reason: string): Awaitable<unknown> {
    return this.nodes.cancel(invocation.invocationId, reason);
  }

  failInvocation(invocation: NodeInvocation, error: string): Awaitable<unknown> {
    return this.nodes.fail(invocation.invocationId, error);
  }

  /**
   * True for an error after which the run must write nothing more, not even its failure: the storage
   * itself failed (a durable store's disk is full, say), so the run ends as a crash would and recovery
   * continues it from the last commit. In-memory stores never fail that way.
   */
  abandonsRun(_error: unknown): boolean {
    return false;
  }

  checkpointState(instanceId: string, state: unknown): Awaitable<void> {
    return this.instances.saveState(instanceId, state);
  }

  /**
   * Closes both crash windows, then reports where a recovered run must start:
   * 1. a source that completed between staging and promotion → its STAGED rows become PENDING;
   * 2. a consumer that completed between claiming and promoting → its rows become CONSUMED_COMPLETED.
   * RUNNING invocations are orphans (no engine runs this instance now): marked CRASHED, their
   * staged rows dropped, their claimed inputs left CONSUMED_PENDING to be re-offered.
   */
  async recover(instanceId: string): Promise<RecoveryScan> {
    const orphans = await this.nodes.listRunning(instanceId);
    for (const o of orphans) await this.nodes.markCrashed(o.invocationId);
    if (orphans.length > 0) await this.delivers.discardStaged(orphans.map((o) => o.invocationId));

    const open = await this.delivers.listByStatus(instanceId, ["STAGED", "CONSUMED_PENDING"]);
    const sources = new Set<string>();
    const consumers = new Set<string>();
    for (const row of open) {
      if (row.status === "STAGED" && row.sourceInvocationId) sources.add(row.sourceInvocationId);
      if (row.status === "CONSUMED_PENDING" && row.consumedByInvocationId) consumers.add(row.consumedByInvocationId);
    }
    for (const id of sources) {
      const inv = await this.nodes.get(id);
      if (inv?.status === "COMPLETED") await this.delivers.promoteStaged(id);
      else await this.delivers.discardStaged([id]);
    }
    for (const id of consumers) {
      const inv = await this.nodes.get(id);
      if (inv?.status === "COMPLETED") await this.delivers.promoteConsumed(id);
    }

    const pending = await this.delivers.listByStatus(instanceId, ["PENDING", "CONSUMED_PENDING"]);
    return {
      orphanedNodeIds: unique(orphans.map((o) => o.nodeId)),
      pendingNodeIds: unique(pending.map((r) => r.targetNodeId)),
    };
  }
}

const noRows = (): DeliverRow[] => [];
const unique = (xs: string[]): string[] => [...new Set(xs)];

/** Assembles a coordinator; the orchestrator asks one per instance run. */
export interface CoordinatorFactory {
  create(): GraphPersistenceCoordinator;
}
