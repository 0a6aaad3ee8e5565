import type { BusyInputMode } from "./chat-event";
import { detach, type ChatPublisher } from "./chat-publisher";
import type { SendOutcome } from "./chat-types";
import type { ChatTurns } from "./chat-turns";
import type { LiveSession } from "./live-session";

/**
 * A message sent while `running` runs, per the agent's busy-input mode or the sender's `override` for
 * this one message. INTERRUPT is the spec's cancellation path B: the running leg's task is aborted
 * (its AbortSignal: the provider's stream and the engine stop at once, no control channel, no drain);
 * `drive` then ends the turn "interrupted", keeping what streamed, and the new message runs next.
 */
export function busy(publisher: ChatPublisher, turns: ChatTurns, live: LiveSession, running: string, text: string, override?: BusyInputMode): SendOutcome {
  const wanted = override ?? live.busyInput;
  const mode: BusyInputMode = wanted === "STEER" && live.awaiting ? "QUEUE" : wanted;
  publisher.publish(live, running, { type: "busy_input", mode, text });
  return applyBusy(turns, live, running, text, mode);
}

/** What `busy` does with a message once its busy_input event is published (also for one another process relayed). */
export function applyBusy(turns: ChatTurns, live: LiveSession, running: string, text: string, mode: BusyInputMode): SendOutcome {
  const sessionId = live.row.sessionId;
  if (mode === "STEER") {
    live.steer.push(text);
    return { sessionId, turnId: running, handled: "steered", mode };
  }
  if (mode === "QUEUE") {
    live.queue.push(text);
    return { sessionId, turnId: running, handled: "queued", mode };
  }
  // INTERRUPT: the new message goes first; the running turn ends cancelled, keeping what streamed.
  live.queue.unshift(text);
  if (live.awaiting) {
    detach(turns.stopSuspended(live, live.awaiting));
    turns.startQueued(live);
  } else if (live.leg?.turnId === running) {
    live.leg.abort.abort(new DOMException(`interrupted by a new message`, "AbortError"));
  }
  return { sessionId, turnId: running, handled: "interrupted", mode };
}
