import { graphPayload, isGraphPayload, type GraphPayload } from "@/server/graph/payload";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { pendingControlRequest, type ControlRequest } from "@/server/services/control-request";
import { forkedFromOf } from "@/server/services/fork-lineage";
import type { RunPlan } from "@/server/services/instance-run";
import { resumeDueOf } from "@/server/services/resume-due";
import type { WorkJob } from "./dispatch";

/** What a worker holding an instance's lease does for a job. */
export type JobAction =
  /** Nothing is due (stopped; paused without a resume; a job already done). */
  | { kind: "none" }
  /** Completed or failed with nothing to pick up: store a `run_finished` a dead worker left out (finish-repair.ts). */
  | { kind: "repair" }
  /** A run; `crashFirst`: a run of it had started elsewhere (its worker died): CRASHED, then RECOVERY. */
  | { kind: "run"; plan: RunPlan; crashFirst: boolean };

export interface JobFacts {
  /** A node invocation of the instance exists (a run of it has started). Asked only of a running instance. */
  started: boolean;
  /** A pause or stop stored on the lease for the run this job continues (ClusterControl.request). */
  requested: ControlRequest | null;
  /** The content of the first external deliver still pending, for a completed or failed instance. */
  wake?: unknown;
}

/**
 * The run a job starts, as GraphOrchestrator starts it for the same command in the single process:
 * `create` → fresh (a fork: RECOVERY from its seeded state and delivers, as a recover), `resume` →
 * resume (value, step) of an accepted resume, `recover` → RECOVERY honouring a request kept from
 * before, `wake` → version N+1 in RECOVERY seeded by the pending delivers, `reinvoke` → version N+1,
 * fresh. Jobs are delivered at least once, so each is checked against the instance as it is now: a job
 * whose work is already done (or overtaken) starts nothing, or recovers what is still running.
 */
export function planJob(job: WorkJob, instance: GraphInstanceRecord, facts: JobFacts): JobAction {
  switch (instance.status) {
    case "stopped":
      return { kind: "none" };
    case "completed":
    case "failed":
      if (job.kind === "reinvoke" && (job.version === undefined || job.version === instance.version)) {
        return run({ instance, mode: "fresh", input: toPayload(job.input) });
      }
      if ("wake" in facts && facts.wake !== undefined) {
        return run({ instance, mode: "recovery", restoreState: true, input: toPayload(facts.wake) });
      }
      return { kind: "repair" };
    case "paused":
      // Only the resume that was accepted (resume_due, cleared when its run starts): a resume job
      // delivered again after that run paused anew must not answer the new wait with the old value.
      if (job.kind !== "resume" || !resumeDueOf(instance)) return { kind: "none" };
      // A pause or stop stored after that resume was accepted is this run's: the run delivers the
      // resume value, then honours it (ClusterGraphControl.requestDrain).
      return run({ instance, mode: "recovery", restoreState: true, resume: { value: job.value }, step: job.step, honour: facts.requested ?? undefined });
    case "crashed":
      return run({ instance, mode: "recovery", restoreState: true, honour: honourOf(instance, facts) });
    case "running":
      // A fork starts from the ledger it was seeded with (RECOVERY), as GraphOrchestrator.startSeeded does.
      // A pause or stop sent before any worker started it is this first run's (it drains at once).
      if (!facts.started) {
        const honour = honourOf(instance, facts);
        return run(forkedFromOf(instance) ? { instance, mode: "recovery", restoreState: true, honour } : { instance, mode: "fresh", honour });
      }
      return run({ instance, mode: "recovery", restoreState: true, honour: honourOf(instance, facts) }, true);
  }
}

function run(plan: RunPlan, crashFirst = false): JobAction {
  return { kind: "run", plan, crashFirst };
}

function honourOf(instance: GraphInstanceRecord, facts: JobFacts): ControlRequest | undefined {
  return facts.requested ?? pendingControlRequest(instance) ?? undefined;
}

export function toPayload(input: unknown): GraphPayload {
  if (isGraphPayload(input)) return graphPayload(input);
  return graphPayload({ content: input ?? null });
}
