import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { QueuedWork } from "@/shared/queued-work";

/**
 * On a cluster, a PAUSED instance whose resume (a plain resume, Step, an answer or an approval decision)
 * was accepted, a COMPLETED or FAILED one whose reinvoke or new-run deliver was, or a CRASHED one whose
 * recover (or recovery-run deliver) was, while no worker has started that run yet: the instance still
 * reads PAUSED (COMPLETED, FAILED, CRASHED), so this attribute is what makes a second answer, decision,
 * resume, reinvoke or recover in that moment find it busy, as the single process finds it running. Set
 * under the instance's row lock in the transaction that enqueues the job; cleared by the run's start
 * (InstanceRun), which a worker only makes for a resume job while the attribute is set (a job
 * delivered twice starts one run). A crashed instance's job, and a completed one's deliver job with its
 * deliver pending, always start a run, so the mark never outlives its job.
 */
export const RESUME_DUE_ATTR = "resume_due";

export interface ResumeDue {
  /** What was accepted (QueuedWork["kind"]). */
  kind: QueuedWork["kind"];
  at: number;
}

export function resumeDueOf(instance: GraphInstanceRecord): ResumeDue | null {
  const value = instance.attrs[RESUME_DUE_ATTR];
  return value && typeof value === "object" ? (value as ResumeDue) : null;
}

/** The instance view's word for it (InstanceSummary.queued): what is due and since when; null when nothing is. */
export function queuedWorkOf(instance: GraphInstanceRecord): QueuedWork | null {
  return queuedWorkOfAttr(instance.attrs[RESUME_DUE_ATTR]);
}

/** The same from the attribute's value alone (a listing row reads only it, not the whole record). */
export function queuedWorkOfAttr(value: unknown): QueuedWork | null {
  if (!value || typeof value !== "object") return null;
  const due = value as ResumeDue;
  return { kind: due.kind, since: due.at };
}
