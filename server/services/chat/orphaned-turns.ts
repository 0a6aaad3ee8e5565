import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import type { ChatSessionRow, ChatStore } from "./chat-store";

export const RESTART_MESSAGE = "the server stopped while this turn ran; what streamed before is kept: send the message again to retry";

/** After a restart: a turn that was running (not waiting for approval) died with the process. */
export function endOrphanedTurns(store: ChatStore, now: () => number): Awaitable<void> {
  return chain(store.sessions(), (rows) => {
    const writes: Awaitable<boolean>[] = [];
    for (const row of rows) {
      if (!row.runningTurn || row.awaitingApproval) continue;
      writes.push(endTurnOf(store, row, now));
    }
    const pending = writes.filter(isPromise);
    return pending.length > 0 ? Promise.all(pending).then(() => undefined) : undefined;
  });
}

/**
 * The running turn of `row` died with its process: `turn_failed`, and the chat is free, in one commit;
 * neither when that turn no longer runs as stored (the chat moved on since `row` was read). Answers
 * whether it ended the turn.
 */
export function endTurnOf(store: ChatStore, row: ChatSessionRow, now: () => number): Awaitable<boolean> {
  const turnId = row.runningTurn!;
  const ended = store.write(() => {
    // Stored only while the turn runs, holding the row: the end that follows is then that turn's.
    store.appendWhileRunning({ type: "turn_failed", message: RESTART_MESSAGE, sessionId: row.sessionId, turnId, at: now() });
    return store.endTurn(row.sessionId, turnId, null);
  });
  return chain(ended, (answer) => chain(answer, (r) => r !== null));
}
