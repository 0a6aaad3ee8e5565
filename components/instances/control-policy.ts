import type { InstanceStatus } from "@/components/api/contract";
import { type QueuedWork, queuedReason } from "@/shared/queued-work";

/**
 * Which control commands the instance's status allows, with the reason when it does not; mirrors the
 * status machine GraphControlService enforces (the server stays the authority and answers CONFLICT).
 */
export interface ControlAvailability {
  pause: string | null;
  stop: string | null;
  resume: string | null;
  deliver: string | null;
  reinvoke: string | null;
  /** Shown only for a crashed run: re-run it from its ledger. */
  recover: string | null;
}

/**
 * `waitingFor`: what a paused run waits on a person for, if anything. Either way Resume is not the way
 * on (the server refuses it): the person answers the input card, or approves or denies the call.
 * `queued`: on a cluster, a resume, answer, decision, reinvoke, recover or new-run deliver already
 * accepted that no worker has started: the command that would make it due again is disabled with why
 * (the server answers 409). A queued deliver's run is version N+1, as a reinvoke's: Re-invoke waits.
 */
export function controlAvailability(status: InstanceStatus, waitingFor: "input" | "approval" | null, queued: QueuedWork | null = null): ControlAvailability {
  const allowed = byStatus(status, waitingFor);
  if (!queued) return allowed;
  const why = queuedReason(queued);
  switch (queued.kind) {
    case "reinvoke":
    case "deliver":
      return { ...allowed, reinvoke: why };
    case "recover":
      return { ...allowed, recover: why };
    case "resume":
    case "answer":
    case "decision":
      return { ...allowed, resume: why };
  }
}

function byStatus(status: InstanceStatus, waitingFor: "input" | "approval" | null): ControlAvailability {
  const finished = "The run has finished";
  switch (status) {
    case "running":
      return { pause: null, stop: null, resume: "Already running", deliver: null, reinvoke: "Only a completed or failed run takes new input", recover: "Only a crashed run is recovered" };
    case "paused":
      return {
        pause: "Already paused",
        stop: null,
        resume:
          waitingFor === "input" ? "Waiting for a human: answer the card to resume" : waitingFor === "approval" ? "Waiting for approval: approve or deny the call on the card to resume" : null,
        deliver: null,
        reinvoke: "Only a completed or failed run takes new input",
        recover: "Only a crashed run is recovered",
      };
    case "crashed": {
      const crashed = "Its server stopped mid-run: Recover re-runs it from its last commit (automatic recovery does so by itself)";
      return { pause: crashed, stop: crashed, resume: crashed, deliver: null, reinvoke: "Only a completed or failed run takes new input", recover: null };
    }
    case "stopped":
      return { pause: "Stopped for good", stop: "Already stopped", resume: "A stopped run cannot resume", deliver: "A stopped run takes no deliveries", reinvoke: "A stopped run cannot be re-invoked", recover: "Only a crashed run is recovered" };
    case "completed":
    case "failed":
      return { pause: finished, stop: finished, resume: finished, deliver: null, reinvoke: null, recover: "Only a crashed run is recovered" };
  }
}
