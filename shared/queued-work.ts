/**
 * On a PostgreSQL cluster, work a command made due that no worker has started yet: a web process
 * accepted a resume (or Step), an answer, an approval decision, a reinvoke, a recover or a deliver that
 * starts a run, committed it with its job, and replied `queued` because no worker started the run
 * within its wait. Until a worker starts it the instance still reads as before (paused, completed,
 * failed, crashed), so the view and the Instances list say it is queued instead of
 * offering the command again (the server would refuse it with 409). Never set on SQLite or the `all`
 * role: there the command starts the run before it replies.
 */
export interface QueuedWork {
  /**
   * What was accepted: "resume" (or Step), "answer", "decision" (approve / deny), "reinvoke" (version
   * N+1), "recover" (a crashed run, by Recover or a deliver), "deliver" (a deliver to a completed or
   * failed run: version N+1).
   */
  kind: "resume" | "answer" | "decision" | "reinvoke" | "recover" | "deliver";
  /** When it was accepted (ms since the epoch). */
  since: number;
}

/** The status line the instance view shows for queued work (header, toolbar, summary). */
export const QUEUED_LABEL = "Queued — waiting for a worker";
/** The same in a list row's status badge (Instances, Home), as short as the other row labels. */
export const QUEUED_ROW_LABEL = "queued for a worker";

/** Why a control that would make the same work due again is disabled while it is queued. */
export function queuedReason(work: QueuedWork): string {
  const what = WHAT[work.kind];
  return `${what} was accepted and is queued: no worker has started the run yet (it starts when a worker is free)`;
}

const WHAT: Record<QueuedWork["kind"], string> = {
  resume: "The resume",
  answer: "The answer",
  decision: "The decision",
  reinvoke: "The new input",
  recover: "The recovery",
  deliver: "The delivered message",
};
