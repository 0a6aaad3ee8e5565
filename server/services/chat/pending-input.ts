import type { ChatEvent } from "./chat-event";
import { RESTART_MESSAGE } from "./orphaned-turns";

/** Messages sent while a turn ran that are still to be handled: to run as turns of their own, or to steer the running turn. */
export interface PendingInput {
  queue: string[];
  steer: string[];
}

/**
 * What a chat's event log says is still waiting behind its running turn, folded the way ChatService
 * handles busy input: a QUEUE message waits at the end of the queue, an INTERRUPT one at its head, a
 * STEER one until it is injected (its "steered the turn" notice) or the turn ends (then it runs as a turn
 * of its own); a queued message is done once its turn starts (`queued_started`). A process keeps this in
 * memory only: after a restart, a turn that waits for an approval gets it back from here, so a message
 * acknowledged as queued still runs. A turn the restart ended (`turn_failed` with RESTART_MESSAGE) took
 * what waited behind it along, as it always has.
 */
export function pendingInputOf(events: readonly ChatEvent[]): PendingInput {
  let queue: string[] = [];
  let steer: string[] = [];
  const drop = (list: string[], text: string) => {
    const at = list.indexOf(text);
    if (at >= 0) list.splice(at, 1);
  };
  for (const e of events) {
    switch (e.type) {
      case "busy_input":
        if (e.mode === "STEER") steer.push(e.text);
        else if (e.mode === "INTERRUPT") queue.unshift(e.text);
        else queue.push(e.text);
        break;
      case "notice":
        if (e.command === "steer" && e.text.startsWith(STEERED)) drop(steer, e.text.slice(STEERED.length));
        break;
      case "queued_started":
        drop(queue, e.text);
        break;
      case "turn_completed":
        queue.push(...steer.splice(0));
        break;
      case "turn_failed":
        if (e.message === RESTART_MESSAGE) [queue, steer] = [[], []];
        else queue.push(...steer.splice(0));
        break;
      default:
        break;
    }
  }
  return { queue, steer };
}

/** The notice ChatService publishes when a STEER message reached the running turn. */
export const STEERED = "steered the turn: ";
