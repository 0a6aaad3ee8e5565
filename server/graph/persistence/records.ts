import type { GraphPayload } from "../payload";

export const INSTANCE_STATUSES = ["running", "paused", "stopped", "crashed", "completed", "failed"] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** Legal instance transitions. Stopped is terminal; resume (→ running) accepts paused only. */
const TRANSITIONS: Record<InstanceStatus, readonly InstanceStatus[]> = {
  running: ["paused", "stopped", "crashed", "completed", "failed"],
  paused: ["running", "stopped"],
  crashed: ["running", "failed"],
  stopped: [],
  completed: [],
  failed: [],
};

export const canTransition = (from: InstanceStatus, to: InstanceStatus): boolean =>
  TRANSITIONS[from].includes(to);

export const isTerminalStatus = (s: InstanceStatus): boolean => TRANSITIONS[s].length === 0;

/** One row per graph run version of an instance. */
export interface GraphInstanceRecord {
  readonly instanceId: string;
  readonly version: number;
  readonly graphName: string;
  readonly specId: string | null;
  readonly status: InstanceStatus;
  /** Name → node id, frozen at creation and copied across versions. */
  readonly nodeIdMap: Readonly<Record<string, string>>;
  readonly attrs: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Input and output of one instance version: the conversation history of the instance. */
export interface GraphIORecord {
  readonly instanceId: string;
  readonly version: number;
  readonly input: GraphPayload;
  readonly output: readonly GraphPayload[] | null;
}

export const INVOCATION_STATUSES = ["RUNNING", "COMPLETED", "CANCELLED", "FAILED", "CRASHED"] as const;
export type InvocationStatus = (typeof INVOCATION_STATUSES)[number];

/** One execution of one node; versions form a chain per (instance, node). */
export interface NodeInvocation {
  readonly invocationId: string;
  readonly instanceId: string;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly version: number;
  /** Version of the latest completed invocation when this one began, or null. */
  readonly parentVersion: number | null;
  readonly status: InvocationStatus;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly error: string | null;
}

export const DELIVER_STATUSES = ["STAGED", "PENDING", "CONSUMED_PENDING", "CONSUMED_COMPLETED"] as const;
export type DeliverStatus = (typeof DELIVER_STATUSES)[number];

/** A row of the deliver ledger. `content` flows through the store, never through dispatch. */
export interface DeliverRow {
  readonly deliverId: string;
  readonly instanceId: string;
  readonly sourceNode: string;
  readonly sourceNodeId: string;
  /** Null for external delivers (DELIVER_TO_NODE from the control service). */
  readonly sourceInvocationId: string | null;
  readonly targetNode: string;
  readonly targetNodeId: string;
  readonly content: unknown;
  readonly status: DeliverStatus;
  readonly consumedByInvocationId: string | null;
  readonly createdAt: number;
}

/**
 * A row handed to `stage`; immutable once handed over. The engine's rows also carry
 * `status: "PENDING"` and `consumedByInvocationId: null`, what they read once promoted, so a store
 * that keeps rows in memory may hand such a row out as its PENDING snapshot instead of copying it.
 */
export type NewDeliverRow = Omit<DeliverRow, "status" | "consumedByInvocationId">;

/** True when `fields` already reads as the row at this status: it can serve as that snapshot. */
export function readsAs(fields: NewDeliverRow, status: DeliverStatus, consumedByInvocationId: string | null): fields is DeliverRow {
  const row = fields as Partial<DeliverRow>;
  return row.status === status && row.consumedByInvocationId === consumedByInvocationId;
}

/** A ledger row from its fields and current state (a fresh object, never a view of `fields`). */
export function deliverRow(fields: NewDeliverRow, status: DeliverStatus, consumedByInvocationId: string | null): DeliverRow {
  return {
    deliverId: fields.deliverId,
    instanceId: fields.instanceId,
    sourceNode: fields.sourceNode,
    sourceNodeId: fields.sourceNodeId,
    sourceInvocationId: fields.sourceInvocationId,
    targetNode: fields.targetNode,
    targetNodeId: fields.targetNodeId,
    content: fields.content,
    status,
    consumedByInvocationId,
    createdAt: fields.createdAt,
  };
}
