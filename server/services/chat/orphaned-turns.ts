import type { TurnSnapshot } from "@/server/agent/approval/turn-snapshot";
import { TurnCustomKeys } from "@/server/agent/state/turn-custom-keys";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import type { ChatSessionRow, ChatStore } from "./chat-store";

export const RESTART_MESSAGE = "the server stopped while this turn ran; what streamed before is kept: send the message again to retry";

/**
 * How many times in a row a restart resumes one turn from its checkpoint. A turn whose work kills the
 * server (a tool that exhausts memory, say) would otherwise crash it at every start: past this it ends
 * as a turn with no checkpoint does.
 */
export const MAX_CHECKPOINT_RESUMES = 2;

export const RESUME_LIMIT_MESSAGE = `the server stopped while this turn ran, again after ${MAX_CHECKPOINT_RESUMES} resumes from its last checkpoint: it is not resumed again; what streamed before is kept: send the message again to retry`;

/** A running turn whose process died, to resume from its iteration checkpoint. */
export interface ResumableTurn {
  sessionId: string;
  checkpoint: TurnSnapshot;
}

/** What became of an orphaned turn: resumable from its checkpoint, or ended (false: the chat had moved on). */
export type OrphanOutcome = { resume: ResumableTurn } | { ended: boolean };

/**
 * After a restart: a turn that was running (not waiting for approval) died with the process. One with a
 * checkpoint it may still resume from is answered, left running, for the caller to resume; any other
 * ends (`endTurnOf`).
 */
export function endOrphanedTurns(store: ChatStore, now: () => number): Awaitable<ResumableTurn[]> {
  return chain(store.sessions(), (rows) => {
    const outcomes: Awaitable<OrphanOutcome>[] = [];
    for (const row of rows) {
      if (!row.runningTurn || row.awaitingApproval) continue;
      outcomes.push(settleOrphan(store, row, now));
    }
    const resumable = (all: OrphanOutcome[]) => all.flatMap((o) => ("resume" in o ? [o.resume] : []));
    return outcomes.some(isPromise) ? Promise.all(outcomes).then(resumable) : resumable(outcomes as OrphanOutcome[]);
  });
}

/**
 * The running turn of `row` died with its process: resumable when it has a checkpoint resumed fewer
 * than MAX_CHECKPOINT_RESUMES times (nothing is written here: the caller resumes it), else ended.
 */
export function settleOrphan(store: ChatStore, row: ChatSessionRow, now: () => number): Awaitable<OrphanOutcome> {
  const turnId = row.runningTurn!;
  return chain(store.checkpoint(turnId), (checkpoint): Awaitable<OrphanOutcome> => {
    if (checkpoint && resumesOf(checkpoint) < MAX_CHECKPOINT_RESUMES) return { resume: { sessionId: row.sessionId, checkpoint } };
    return chain(endTurnOf(store, row, now, checkpoint ? RESUME_LIMIT_MESSAGE : RESTART_MESSAGE), (ended) => ({ ended }));
  });
}

/** How many times a restart resumed the turn from this checkpoint's line already. */
export function resumesOf(checkpoint: TurnSnapshot): number {
  const count = checkpoint.turn.custom[TurnCustomKeys.CHECKPOINT_RESUMES.name];
  return typeof count === "number" ? count : 0;
}

/**
 * The running turn of `row` died with its process: `turn_failed`, and the chat is free, in one commit;
 * neither when that turn no longer runs as stored (the chat moved on since `row` was read). Answers
 * whether it ended the turn.
 */
export function endTurnOf(store: ChatStore, row: ChatSessionRow, now: () => number, message = RESTART_MESSAGE): Awaitable<boolean> {
  const turnId = row.runningTurn!;
  const ended = store.write(() => {
    // Stored only while the turn runs, holding the row: the end that follows is then that turn's.
    store.appendWhileRunning({ type: "turn_failed", message, sessionId: row.sessionId, turnId, at: now() });
    return store.endTurn(row.sessionId, turnId, null);
  });
  return chain(ended, (answer) => chain(answer, (r) => r !== null));
}
