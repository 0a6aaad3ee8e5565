import { chain } from "@/server/graph/awaitable";
import { END } from "@/server/graph/names";
import type { GraphInstanceRecord, InstanceStatus } from "@/server/graph/persistence/records";
import { invalidState, ServiceError, toServiceError } from "./errors";
import { BREAKPOINTS_ATTR, checkBreakpoints } from "./breakpoints";
import { CONTROL_REQUEST_ATTR } from "./control-request";
import type { Durability } from "./durability";
import type { EventRecorder } from "./event-recorder";
import type { ClaimKey } from "./idempotency-service";
import type { Author } from "./answer-author";
import type { InstanceArchive } from "./instance-archive";
import { requireInstance, type GraphOrchestrator } from "./graph-orchestrator";
import { ANSWERS_ATTR, answersOf, waitingFor } from "./waiting-for";
import { answerOf, decisionOf, EXTERNAL_SOURCE, externalDeliver } from "./control-checks";
import { isAgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { APPROVALS_ATTR, approvalsOf } from "./agents/approval-records";

/** The graph commands of the control plane (seed 000, "Control: the control plane"), plus answers and re-invocation. */
export const CONTROL_COMMANDS = ["PAUSE_GRAPH", "STOP_GRAPH", "RESUME_GRAPH", "STEP", "DELIVER_TO_NODE", "ANSWER", "REINVOKE", "RECOVER", "APPROVE", "DENY", "SET_BREAKPOINTS"] as const;
export type ControlCommand = (typeof CONTROL_COMMANDS)[number];

export { EXTERNAL_SOURCE } from "./control-checks";

/**
 * What a reply says of the instance: its status when the command returned, or, on a PostgreSQL cluster
 * only, `queued`: the command is committed and the run it makes due waits for a worker, which had not
 * started it when the reply's wait ended (the instance itself still reads as before: paused, completed,
 * failed or crashed, until a worker starts the run).
 */
export type ControlStatus = InstanceStatus | "queued";

export interface ControlResult {
  command: ControlCommand;
  instanceId: string;
  /** The instance's version when the command returned (`queued`: the version its run is to run). */
  version: number;
  status: ControlStatus;
  /** Pause/stop only: true while in-flight nodes are still finishing (the status changes when they do). */
  draining?: boolean;
}

export interface DeliverResult extends ControlResult {
  deliverId: string;
  /** How the engine learns of the row: picked up by the run here, at resume, or by a new run. */
  pickup: "running" | "on_resume" | "new_run" | "recovery_run" | "later";
}

export interface ControlDeps {
  orchestrator: GraphOrchestrator;
  recorder: EventRecorder;
  /** Every answer waits for the commit that holds its effect. */
  durability: Durability;
  /** How long pause/stop wait for the run to drain before answering (default 2 s). */
  drainWaitMs?: number;
  /** Archive marks and deletion of an instance's rows (delete / archive below). */
  archive?: InstanceArchive;
  /** Told of each deleted instance, after the commit (caches of the read side). */
  onDeleted?: (instanceId: string) => void;
}

export interface ArchiveResult {
  instanceId: string;
  archived: boolean;
}

/**
 * The ONE path of external control: the tRPC control router, the REST routes and (through REST)
 * modexctl all call these methods. Each persists its effect (a status transition, a deliver row)
 * before it signals the running engine through its GraphRunControl or starts a run, and answers only
 * once that effect is committed: a write the storage refuses is a STORAGE_* error, never a silent loss.
 */
export class GraphControlService {
  constructor(private readonly deps: ControlDeps) {}

  /** PAUSE_GRAPH: running → paused at the next safe point. Idempotent on a paused instance. */
  async pause(instanceId: string): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    const control = this.deps.orchestrator.controlOf(instanceId);
    if (control) {
      await this.persistRequest(instanceId, "pause");
      control.requestPause();
      return this.afterDrain("PAUSE_GRAPH", instanceId);
    }
    if (instance.status === "paused") return result("PAUSE_GRAPH", instance);
    throw invalidState(instanceId, instance.status, notHere(instance.status, "paused"));
  }

  /** STOP_GRAPH: running → stopped at the next safe point; paused → stopped at once. Terminal. */
  async stop(instanceId: string): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    const control = this.deps.orchestrator.controlOf(instanceId);
    if (control) {
      await this.persistRequest(instanceId, "stop");
      control.requestStop();
      return this.afterDrain("STOP_GRAPH", instanceId);
    }
    if (instance.status === "stopped") return result("STOP_GRAPH", instance);
    if (instance.status !== "paused") throw invalidState(instanceId, instance.status, notHere(instance.status, "stopped"));
    const stopped = await this.transition(instance, "stopped");
    return result("STOP_GRAPH", stopped);
  }

  /**
   * RESUME_GRAPH: PAUSED only. An instance waiting for a human is resumed by `answer`. Paused at a
   * breakpoint, it is Continue: the node it held before starts (once). STEP: only that next node starts,
   * then the run holds again before the one after.
   */
  async resume(instanceId: string, options: { step?: boolean } = {}): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    if (instance.status !== "paused" || this.deps.orchestrator.isRunningHere(instanceId)) {
      throw invalidState(instanceId, instance.status, `${options.step ? "step" : "resume"} accepts PAUSED instances only`);
    }
    const waiting = waitingFor(instance);
    if (isAgentApprovalRequest(waiting)) {
      throw invalidState(instanceId, instance.status, `agent ${waiting.node} waits for approval of ${waiting.tool}: approve or deny it instead`);
    }
    if (waiting) {
      throw invalidState(instanceId, instance.status, "it waits for human input: answer it instead");
    }
    const command = options.step ? "STEP" : "RESUME_GRAPH";
    return this.start(command, instance, () => this.deps.orchestrator.resume(instance, undefined, options));
  }

  /**
   * SET_BREAKPOINTS: the nodes the instance's runs pause before (replacing the earlier set; [] clears).
   * Kept with the instance; a run in this process takes them at once.
   */
  async setBreakpoints(instanceId: string, nodes: readonly string[]): Promise<ControlResult & { breakpoints: string[] }> {
    const instance = await this.load(instanceId);
    const breakpoints = checkBreakpoints(instance.nodeIdMap, nodes);
    await this.write(() => this.deps.orchestrator.coordinator.instances.updateAttrs(instanceId, { [BREAKPOINTS_ATTR]: breakpoints }));
    this.deps.orchestrator.controlOf(instanceId)?.setBreakpoints(breakpoints);
    return { ...result("SET_BREAKPOINTS", await this.load(instanceId)), breakpoints };
  }

  /**
   * ANSWER: the human's value for the HumanInputNode a PAUSED instance waits on; the run resumes.
   * The answer is recorded first (attrs `answers`: node, value, by, at, version) for the instance view.
   */
  async answer(instanceId: string, value: unknown, by: Author | string = "unknown", claim?: ClaimKey): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    const answer = answerOf(instance, value, by, this.deps.orchestrator.isRunningHere(instanceId));
    const record = () => this.deps.orchestrator.coordinator.instances.updateAttrs(instanceId, { [ANSWERS_ATTR]: [...answersOf(instance), answer] });
    await this.write(() => (claim ? this.deps.durability.together(() => (record(), claim(`${instance.version}`))) : record()));
    return this.start("ANSWER", instance, () => this.deps.orchestrator.resume(instance, value));
  }

  /**
   * APPROVE / DENY: the decision on the tool call an agent node of a PAUSED instance waits to run. The
   * decision is recorded first (attrs `agent_approvals`: node, tool, arguments, approved, reason, by, at),
   * committed with the claim of an Idempotency-Key if any, then the run resumes: the agent's suspended
   * turn goes on at TOOL (approved: the tool runs; denied: the model reads why), without a model call.
   * `transactionId`, when given, must be the waiting one (a stale card's decision is refused).
   */
  async decide(args: { instanceId: string; approved: boolean; reason?: string; by?: Author | string; transactionId?: string; claim?: ClaimKey }): Promise<ControlResult> {
    const { instanceId } = args;
    const command = args.approved ? "APPROVE" : "DENY";
    const instance = await this.load(instanceId);
    const { record, decision } = decisionOf(instance, args, this.deps.orchestrator.isRunningHere(instanceId));
    const save = () => this.deps.orchestrator.coordinator.instances.updateAttrs(instanceId, { [APPROVALS_ATTR]: [...approvalsOf(instance), record] });
    const { claim } = args;
    await this.write(() => (claim ? this.deps.durability.together(() => (save(), claim(`${instance.version}`))) : save()));
    return this.start(command, instance, () => this.deps.orchestrator.resume(instance, decision));
  }

  /** New input to a COMPLETED or FAILED instance: version N+1. */
  async reinvoke(instanceId: string, input: unknown, claim?: ClaimKey): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    if (instance.status !== "completed" && instance.status !== "failed") {
      throw invalidState(instanceId, instance.status, "only a completed or failed instance takes new input");
    }
    // The version it makes: a repeat finds the work done once the instance has reached it.
    if (claim) await this.write(() => this.deps.durability.together(() => claim(`${instance.version + 1}`)));
    return this.start("REINVOKE", instance, () => this.deps.orchestrator.reinvoke(instance, input));
  }

  /**
   * RECOVER: re-runs a CRASHED instance with bootstrap RECOVERY, from its ledger (automatic recovery
   * uses this; operators too, when MODEX_RECOVERY=off or after fixing what made a recovery fail).
   */
  async recover(instanceId: string): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    if (instance.status !== "crashed" || this.deps.orchestrator.isRunningHere(instanceId)) {
      throw invalidState(instanceId, instance.status, "only a crashed instance is recovered");
    }
    return this.start("RECOVER", instance, () => this.deps.orchestrator.recover(instance));
  }

  /**
   * DELIVER_TO_NODE: persists an external PENDING row for `node` through the coordinator, then wakes
   * the engine: a run here picks it up (its node consumes it, or a follow-up run does); a paused
   * instance consumes it on resume; a completed, failed or crashed one gets a run now.
   */
  async deliver(args: { instanceId: string; node: string; content: unknown; claim?: ClaimKey }): Promise<DeliverResult> {
    const instance = await this.load(args.instanceId);
    if (instance.status === "stopped") throw invalidState(args.instanceId, "stopped", "a stopped instance takes no delivers");
    const { orchestrator } = this.deps;
    const pending = externalDeliver(instance, args.node, args.content);
    const append = () => orchestrator.coordinator.delivers.appendPending(pending);
    const { claim } = args;
    const row = await this.write(() =>
      claim
        ? this.deps.durability.together(() => {
            const appended = append();
            if (!(appended instanceof Promise)) claim(appended.deliverId);
            return appended;
          })
        : append(),
    );
    this.deps.recorder.record(args.instanceId, instance.version, {
      type: "deliver_promoted",
      instanceId: args.instanceId,
      deliverId: row.deliverId,
      source: EXTERNAL_SOURCE,
      target: args.node === END ? END : args.node,
      payload: args.content,
    });
    const logged = this.deps.durability.mark();
    let pickup: DeliverResult["pickup"] = "later";
    if (orchestrator.requestWake(args.instanceId, args.node)) pickup = "running";
    else if (instance.status === "paused") pickup = "on_resume";
    else if (instance.status === "completed" || instance.status === "failed") {
      await this.start("DELIVER_TO_NODE", instance, () => orchestrator.wake(instance, args.content));
      pickup = "new_run";
    } else if (instance.status === "crashed") {
      await this.start("DELIVER_TO_NODE", instance, () => orchestrator.recover(instance));
      pickup = "recovery_run";
    }
    await this.committed(logged);
    const now = await this.load(args.instanceId);
    return { ...result("DELIVER_TO_NODE", now), deliverId: row.deliverId, pickup };
  }

  /**
   * Archives (or brings back) an instance: hidden from the Instances list unless asked for, nothing
   * else changes (it can still be opened, answered or re-invoked). Any status.
   */
  async archive(instanceId: string, archived = true): Promise<ArchiveResult> {
    await this.load(instanceId);
    const store = this.requireArchive();
    const mark = await this.write(() => this.deps.durability.together(() => chain(store.setArchived(instanceId, archived, Date.now()), () => this.deps.durability.mark())));
    await this.committed(mark);
    return { instanceId, archived };
  }

  /**
   * Deletes an instance and everything it owns (versions, invocations, ledger, events). Refused with
   * INVALID_STATE (409) while it runs, or while a run of it is still finishing here: stop it first.
   * It cannot be undone.
   */
  async delete(instanceId: string): Promise<{ instanceId: string; deleted: true }> {
    const instance = await this.load(instanceId);
    if (instance.status === "running" || this.deps.orchestrator.isRunningHere(instanceId)) {
      throw invalidState(instanceId, instance.status, "a running instance cannot be deleted: stop it first");
    }
    const store = this.requireArchive();
    const mark = await this.write(() => this.deps.durability.together(() => chain(store.delete(instanceId), () => this.deps.durability.mark())));
    await this.committed(mark);
    this.deps.onDeleted?.(instanceId);
    return { instanceId, deleted: true };
  }

  private requireArchive(): InstanceArchive {
    if (!this.deps.archive) throw new ServiceError("BAD_REQUEST", "archiving and deleting are not available on this server");
    return this.deps.archive;
  }

  private async load(instanceId: string): Promise<GraphInstanceRecord> {
    return requireInstance(await this.deps.orchestrator.coordinator.instances.load(instanceId), instanceId);
  }

  private async transition(instance: GraphInstanceRecord, to: InstanceStatus): Promise<GraphInstanceRecord> {
    const moved = await this.write(() => this.deps.orchestrator.coordinator.instances.transition(instance.instanceId, to, [instance.status]));
    this.deps.recorder.record(instance.instanceId, instance.version, {
      type: "instance_status",
      instanceId: instance.instanceId,
      version: instance.version,
      from: instance.status,
      to,
    });
    return moved;
  }

  /** Starts a run and answers once its start is committed (see GraphOrchestrator.launch). */
  private async start(command: ControlCommand, instance: GraphInstanceRecord, launch: () => Promise<void>): Promise<ControlResult> {
    let started: Promise<void>;
    try {
      started = launch();
    } catch (error) {
      throw toServiceError(this.deps.durability.explain(error));
    }
    await started;
    return result(command, await this.load(instance.instanceId));
  }

  /** Commits a pause/stop request before the run is told: a crash while it drains does not forget it. */
  private async persistRequest(instanceId: string, request: "pause" | "stop"): Promise<void> {
    await this.write(() => this.deps.orchestrator.coordinator.instances.updateAttrs(instanceId, { [CONTROL_REQUEST_ATTR]: request }));
  }

  /** A write of the control plane itself: its storage failure says what failed, and where. */
  private async write<T>(fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw toServiceError(this.deps.durability.explain(error));
    }
  }

  /** Waits for the commit of what was written before `mark` (a deliver's event joins the group commit). */
  private committed(mark: number): Promise<void> {
    return this.deps.durability.committed(mark);
  }

  private async afterDrain(command: ControlCommand, instanceId: string): Promise<ControlResult> {
    const wait = this.deps.drainWaitMs ?? 2_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.deps.orchestrator.settled(instanceId),
      new Promise<void>((r) => (timer = setTimeout(r, wait))),
    ]);
    clearTimeout(timer);
    return { ...result(command, await this.load(instanceId)), draining: this.deps.orchestrator.isRunningHere(instanceId) };
  }

}

/** Why a pause or stop found no run to signal. */
function notHere(status: InstanceStatus, verb: string): string {
  return status === "running"
    ? `no run of it is active in this server process (its executor is gone; the sweeper marks it crashed and recovery re-runs it), so it cannot be ${verb} now`
    : `only a running${verb === "stopped" ? " or paused" : ""} instance can be ${verb}`;
}

function result(command: ControlCommand, instance: GraphInstanceRecord): ControlResult {
  return { command, instanceId: instance.instanceId, version: instance.version, status: instance.status };
}
