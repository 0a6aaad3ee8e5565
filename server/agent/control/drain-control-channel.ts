import { AgentCancelledError } from "../errors";
import { ControlCommandType } from "./control-command";
import type { ControlChannel } from "./in-memory-control-channel";

/** Identifies the running turn a drain acts for. */
export interface ControlTarget {
  sessionId: string;
  turnId: string;
  /** Epoch ms the turn started: a CANCEL_TURN naming no turn and sent before it is stale. */
  startedAt?: number;
}

const DRAINED: ReadonlySet<ControlCommandType> = new Set([ControlCommandType.CANCEL_TURN]);

/**
 * The safe-point check. Drains CANCEL_TURN (and only it) for the session: a command for this turn — or
 * one naming no turn, sent since the turn started — raises AgentCancelledError; any other is stale and
 * dropped (a /stop pressed after a turn ended must not cancel the next one).
 * Called at turn start, per LLM stream event, before each tool call and per iteration.
 */
export function drainControlChannel(channel: ControlChannel | undefined, target: ControlTarget): void {
  if (!channel) return;
  const commands = channel.drain(target.sessionId, DRAINED);
  const hit = commands.find((c) => (c.turnId === undefined ? (c.sentAt ?? 0) >= (target.startedAt ?? 0) : c.turnId === target.turnId));
  if (hit) {
    throw new AgentCancelledError(hit.reason ?? "turn cancelled", { userContent: hit.reason ? `Cancelled: ${hit.reason}` : undefined });
  }
}
