import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/**
 * A pause or stop asked of a running instance, kept in its attrs until the run honours it. The answer
 * to Pause/Stop may come while nodes still drain: the request itself is committed before that answer,
 * so a crash in between does not forget it — recovery re-runs the instance with the request already
 * made (it drains at once and ends paused or stopped), instead of running it on as if nobody had asked.
 */
export const CONTROL_REQUEST_ATTR = "control_request";

export type ControlRequest = "pause" | "stop";

export function pendingControlRequest(instance: GraphInstanceRecord): ControlRequest | null {
  const value = instance.attrs[CONTROL_REQUEST_ATTR];
  return value === "pause" || value === "stop" ? value : null;
}
