import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * Who executes an instance: written into its attrs as `executor_process_id` (with a `heartbeat`)
 * when a run starts. The random part tells a restarted server apart from its predecessor even when
 * the operating system hands it the same pid (containers start every server as pid 1).
 */
export interface ExecutorIdentity {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
}

export function currentExecutor(): ExecutorIdentity {
  const host = hostname();
  return { id: `${host}:${process.pid}:${randomBytes(4).toString("hex")}`, host, pid: process.pid };
}

export function parseExecutorId(id: string): { host: string; pid: number } | null {
  const m = /^(.*):(\d+):[0-9a-f]+$/.exec(id);
  return m ? { host: m[1], pid: Number(m[2]) } : null;
}

export const EXECUTOR_ATTR = "executor_process_id";
export const HEARTBEAT_ATTR = "heartbeat";

export function ownershipAttrs(executor: ExecutorIdentity, now = Date.now()): Record<string, unknown> {
  return { [EXECUTOR_ATTR]: executor.id, [HEARTBEAT_ATTR]: now };
}
