import type { Awaitable } from "../awaitable";
import type { DeliverRow, DeliverStatus, NewDeliverRow } from "./records";

/**
 * The deliver ledger: STAGED → PENDING → CONSUMED_PENDING → CONSUMED_COMPLETED. At-least-once with no
 * dedup key; consumers own idempotency. Rows are returned in delivery (insertion) order.
 */
export interface DeliverStore {
  stage(rows: readonly NewDeliverRow[]): Awaitable<void>;
  /** Appends a visible row directly (external deliver from the control service). */
  appendPending(row: NewDeliverRow): Awaitable<DeliverRow>;
  /** STAGED rows of a source invocation become PENDING; returns them. */
  promoteStaged(sourceInvocationId: string): Awaitable<DeliverRow[]>;
  /** PENDING and CONSUMED_PENDING rows addressed to a node. */
  consumable(instanceId: string, targetNodeId: string): Awaitable<DeliverRow[]>;
  /** Claims rows for a consumer invocation (→ CONSUMED_PENDING, consumedBy recorded). */
  markConsumed(deliverIds: readonly string[], invocationId: string): Awaitable<void>;
  /** CONSUMED_PENDING rows of a consumer invocation become CONSUMED_COMPLETED. */
  promoteConsumed(invocationId: string): Awaitable<void>;
  /** Drops STAGED rows of source invocations that never completed. */
  discardStaged(sourceInvocationIds: readonly string[]): Awaitable<void>;
  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): Awaitable<DeliverRow[]>;
  listByInstance(instanceId: string): Awaitable<DeliverRow[]>;
}
