import { AgentCancelledError } from "../errors";
import { ControlCommandType } from "./control-command";
import type { ControlChannel } from "./in-memory-control-channel";

/** Identifies the running turn a drain acts for. */
export interface ControlTarget {
  sessionId: string;
  turnId: string;
}

const DRAINED: ReadonlySet<ControlCommandType> = new Set([ControlCommandType.CANCEL_TURN]);

/**
 * The safe-point check. Drains CANCEL_TURN (and only it) for the session: a command for this turn — or
 * one naming no turn — raises AgentCancelledError; a command naming another turn is stale and dropped.
 * Called at turn start, per LLM stream event, before each tool call and per iteration.
 */
export function drainControlChannel(channel: ControlChannel | undefined, target: ControlTarget): void {
  if (!channel) return;
  const commands = channel.drain(target.sessionId, DRAINED);
  const hit = commands.find((c) => c.turnId === undefined || c.turnId === target.turnId);
  if (hit) {
    throw new AgentCancelledError(hit.reason ?? "turn cancelled", { userContent: hit.reason ? `Cancelled: ${hit.reason}` : undefined });
  }
}
