import { newSnowflake } from "@/server/graph/ids";
import type { BusyInputMode } from "./chat-event";
import { detach, type ChatPublisher } from "./chat-publisher";
import type { ChatInputRow, ChatStore } from "./chat-store";
import type { SendOutcome } from "./chat-types";
import type { ChatTurns } from "./chat-turns";
import type { LiveSession } from "./live-session";

/**
 * A message sent while `running` runs, per the agent's busy-input mode or the sender's `override` for
 * this one message. Its busy_input event and its waiting row (ChatInputRow) are written in one commit,
 * which the caller waits for before answering: an acknowledged message outlives a restart, and runs
 * (or steers) once. INTERRUPT is the spec's cancellation path B: the running leg's task is aborted (its
 * AbortSignal: the provider's stream and the engine stop at once, no control channel, no drain);
 * `drive` then ends the turn "interrupted", keeping what streamed, and the new message runs next.
 */
export function busy(deps: { publisher: ChatPublisher; store: ChatStore; turns: ChatTurns; now: () => number }, live: LiveSession, running: string, text: string, override?: BusyInputMode): SendOutcome {
  const wanted = override ?? live.busyInput;
  const mode: BusyInputMode = wanted === "STEER" && live.awaiting ? "QUEUE" : wanted;
  const input = newInput(live.row.sessionId, mode, text, deps.now());
  detach(
    deps.publisher.atomically(() => {
      deps.publisher.publish(live, running, { type: "busy_input", mode, text });
      deps.store.addInput(input);
    }),
  );
  return applyBusy(deps.turns, live, running, input);
}

/** A waiting input of `sessionId`, not yet stored. */
export function newInput(sessionId: string, mode: BusyInputMode, text: string, at: number): ChatInputRow {
  return { inputId: newSnowflake(at), sessionId, mode, text, at };
}

/** What `busy` does with a stored waiting input (also one another process stored and relayed here). */
export function applyBusy(turns: ChatTurns, live: LiveSession, running: string, input: ChatInputRow): SendOutcome {
  const sessionId = live.row.sessionId;
  const { mode } = input;
  if (mode === "STEER") {
    live.steer.push(input);
    return { sessionId, turnId: running, handled: "steered", mode };
  }
  if (mode === "QUEUE") {
    live.queue.push(input);
    return { sessionId, turnId: running, handled: "queued", mode };
  }
  // INTERRUPT: the new message goes first; the running turn ends cancelled, keeping what streamed.
  live.queue.unshift(input);
  if (live.awaiting) {
    detach(turns.stopSuspended(live, live.awaiting));
    turns.startQueued(live);
  } else if (live.leg?.turnId === running) {
    live.leg.abort.abort(new DOMException(`interrupted by a new message`, "AbortError"));
  }
  return { sessionId, turnId: running, handled: "interrupted", mode };
}
