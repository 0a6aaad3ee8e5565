import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/**
 * On a cluster, a PAUSED instance whose resume (a plain resume, Step, an answer or an approval decision)
 * was accepted, while no worker has started that run yet: the instance is still PAUSED, so this
 * attribute is what makes a second answer, decision or resume in that moment find it busy, as the
 * single process finds it running. Set under the instance's row lock in the transaction that enqueues
 * the resume; cleared by the run's start (InstanceRun), which a worker only makes for a resume job
 * while the attribute is set (a job delivered twice starts one run).
 */
export const RESUME_DUE_ATTR = "resume_due";

export interface ResumeDue {
  /** What was accepted: "resume" (or Step), "answer", "decision". */
  kind: "resume" | "answer" | "decision";
  at: number;
}

export function resumeDueOf(instance: GraphInstanceRecord): ResumeDue | null {
  const value = instance.attrs[RESUME_DUE_ATTR];
  return value && typeof value === "object" ? (value as ResumeDue) : null;
}
