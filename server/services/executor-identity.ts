import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/**
 * Who executes an instance: written into its attrs as `executor_process_id` (with a `heartbeat`)
 * when a run starts. The id is a run id of this server process alone (a UUID), never a pid: a pid is
 * reused, survives as a zombie for a while after `kill -9`, and is 1 in every container. Host and pid
 * are kept for people reading the attrs.
 */
export interface ExecutorIdentity {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
}

export function currentExecutor(): ExecutorIdentity {
  return { id: randomUUID(), host: hostname(), pid: process.pid };
}

export const EXECUTOR_ATTR = "executor_process_id";
export const HEARTBEAT_ATTR = "heartbeat";

export function ownershipAttrs(executor: ExecutorIdentity, now = Date.now()): Record<string, unknown> {
  return { [EXECUTOR_ATTR]: executor.id, [HEARTBEAT_ATTR]: now };
}
