import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { QueuedWork } from "@/shared/queued-work";

/**
 * On a cluster, a PAUSED instance whose resume (a plain resume, Step, an answer or an approval decision)
 * was accepted, or a COMPLETED or FAILED one whose reinvoke was, while no worker has started that run
 * yet: the instance still reads PAUSED (COMPLETED, FAILED), so this attribute is what makes a second
 * answer, decision, resume or reinvoke in that moment find it busy, as the single process finds it running. Set under the instance's row lock in the transaction that enqueues
 * the resume; cleared by the run's start (InstanceRun), which a worker only makes for a resume job
 * while the attribute is set (a job delivered twice starts one run).
 */
export const RESUME_DUE_ATTR = "resume_due";

export interface ResumeDue {
  /** What was accepted: "resume" (or Step), "answer", "decision", "reinvoke" (version N+1). */
  kind: "resume" | "answer" | "decision" | "reinvoke";
  at: number;
}

export function resumeDueOf(instance: GraphInstanceRecord): ResumeDue | null {
  const value = instance.attrs[RESUME_DUE_ATTR];
  return value && typeof value === "object" ? (value as ResumeDue) : null;
}

/** The instance view's word for it (InstanceSummary.queued): what is due and since when; null when nothing is. */
export function queuedWorkOf(instance: GraphInstanceRecord): QueuedWork | null {
  const due = resumeDueOf(instance);
  return due ? { kind: due.kind, since: due.at } : null;
}
