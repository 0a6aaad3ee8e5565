import type { Awaitable } from "../awaitable";
import type { NewDeliverRow, NodeInvocation } from "./records";

export interface BeginInvocationArgs {
  instanceId: string;
  nodeId: string;
  nodeName: string;
  /**
   * Where the node sits in its compiled graph, when the engine opens it: an in-memory mailbox may
   * then address nodes by position instead of hashing their ids. Stores that persist ignore it.
   */
  readonly binding?: NodePlace;
  /** The topology position of the target of the node's outbox row `k`, or -1 (see `binding`). */
  targetAt?(k: number): number;
  /**
   * The node's outbox, when the engine built it: PENDING snapshots of this node's instance, row `k`
   * addressed to the position `targetAt(k)` exactly. A mailbox handed this very list may file its
   * rows without reading them.
   */
  readonly outbox?: readonly NewDeliverRow[];
}

/**
 * A node's position in its graph, and every node id's position in the same graph. One `nodeIds`
 * list per compiled graph: its identity tells two places of one graph.
 */
export interface NodePlace {
  readonly index: number;
  /** Node id → position (may be made when first asked). */
  readonly positions: ReadonlyMap<string, number>;
  /** Position → node id. */
  readonly nodeIds: readonly string[];
}

/**
 * Per-node invocation lifecycle. `begin` inserts RUNNING with version = max + 1 and
 * parentVersion = the latest COMPLETED version. Every other transition is compare-and-swap from
 * RUNNING and raises `InvocationStateError` when the row is no longer RUNNING.
 */
export interface NodeStateStore {
  begin(args: BeginInvocationArgs): Awaitable<NodeInvocation>;
  complete(invocationId: string): Awaitable<NodeInvocation>;
  cancel(invocationId: string, reason: string): Awaitable<NodeInvocation>;
  fail(invocationId: string, error: string): Awaitable<NodeInvocation>;
  markCrashed(invocationId: string): Awaitable<NodeInvocation>;
  get(invocationId: string): Awaitable<NodeInvocation | null>;
  /** RUNNING invocations of an instance: orphans when no engine is executing it. */
  listRunning(instanceId: string): Awaitable<NodeInvocation[]>;
  history(instanceId: string, nodeId: string): Awaitable<NodeInvocation[]>;
  listByInstance(instanceId: string): Awaitable<NodeInvocation[]>;
}
