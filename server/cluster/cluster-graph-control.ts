import type { EngineEvent } from "@/server/graph/events";
import { END } from "@/server/graph/names";
import type { GraphInstanceRecord, InstanceStatus } from "@/server/graph/persistence/records";
import type { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import { PgDeliverStore } from "@/server/db/pg/pg-deliver-store";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { isAgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { APPROVALS_ATTR, approvalsOf } from "@/server/services/agents/approval-records";
import { BREAKPOINTS_ATTR, checkBreakpoints } from "@/server/services/breakpoints";
import { CONTROL_REQUEST_ATTR } from "@/server/services/control-request";
import { invalidState, notFound, ServiceError, toServiceError } from "@/server/services/errors";
import type { ArchiveResult, ControlCommand, ControlResult, DeliverResult } from "@/server/services/graph-control-service";
import type { ClaimKey } from "@/server/services/idempotency-service";
import type { Author } from "@/server/services/answer-author";
import type { InstanceArchive } from "@/server/services/instance-archive";
import type { InstanceControl } from "@/server/services/instance-control";
import { answerOf, decisionOf, EXTERNAL_SOURCE, externalDeliver } from "@/server/services/control-checks";
import { RESUME_DUE_ATTR, resumeDueOf, type ResumeDue } from "@/server/services/resume-due";
import { ANSWERS_ATTR, answersOf, waitingFor } from "@/server/services/waiting-for";
import { isPgStorageError } from "@/server/db/pg/pg-database";
import type { ClusterControl } from "./cluster-control";
import { retryWhileBusy } from "./cluster-errors";
import type { WorkJob } from "./dispatch";
import { type LiveEvents, RunStartSignal } from "./run-start-signal";

export interface ClusterGraphControlOptions {
  db: PgAppDatabase;
  cluster: ClusterControl;
  /** How long pause/stop wait for the worker to drain the run before answering (default 2 s). */
  drainWaitMs?: number;
  /**
   * How long a command that makes a run due (resume, Step, answer, decision, reinvoke, recover, a
   * deliver's new run) waits for a worker to start it before answering `queued` (default 2 s).
   */
  startWaitMs?: number;
  /**
   * The process's live feed of logged events (LISTEN): a reply waiting for a run's start is woken by its
   * `run_started` and reads the event log every START_FALLBACK_MS only; without it, every START_POLL_MS.
   */
  events?: LiveEvents;
  /** Archive marks and deletion (the web process's instance archive on PostgreSQL). */
  archive?: InstanceArchive;
  onDeleted?: (instanceId: string) => void;
}

const INSERT_EVENT_SQL = `INSERT INTO engine_events (instance_id, version, type, payload, created_at)
  VALUES ($1, $2, $3, $4::json, now())`;

/** The newest event of the instance so far (0: none): a run that starts later logs its `run_started` after it. */
const MARK_SQL = `SELECT coalesce(max(id), 0)::text AS mark FROM engine_events WHERE instance_id = $1`;

/** Whether a run of the instance, of version $3 or later, logged its start after event $2. */
const STARTED_SQL = `SELECT EXISTS (SELECT 1 FROM engine_events
  WHERE instance_id = $1 AND id > $2::bigint AND version >= $3 AND type = 'run_started') AS started`;

/** The instance's status and whether a live worker holds its lease. */
const SETTLING_SQL = `SELECT g.status, (l.owner IS NOT NULL AND l.expires_at > now()) AS held
  FROM graph_instances g LEFT JOIN cluster_leases l ON l.instance_id = g.instance_id
  WHERE g.instance_id = $1 AND g.is_latest`;

/**
 * The control plane of a web process on PostgreSQL: the same commands, answers and refusals as
 * GraphControlService, but nothing runs here. Each command commits its state change, the claim of its
 * Idempotency-Key, its event and the pg-boss job that makes the work due in ONE transaction
 * (PgAppDatabase joins every store's query to it); whichever worker takes the job runs the instance
 * under its lease. A pause or stop is stored on the lease and announced on `modex_control`; the running
 * worker drains at its next safe point, and the answer waits for that (up to `drainWaitMs`). A command
 * that makes a run due answers once a worker has started it (its `run_started` is in the event log, up
 * to `startWaitMs`), from the instance as it is then, as the single process answers once the run it
 * starts is going; past the wait its reply is `queued` (AfterStart below).
 */
export class ClusterGraphControl implements InstanceControl {
  constructor(private readonly options: ClusterGraphControlOptions) {}

  private get store(): PgGraphInstanceStore {
    return new PgGraphInstanceStore({ acks: this.options.db, steps: this.options.db });
  }

  async pause(instanceId: string): Promise<ControlResult> {
    return this.requestDrain("PAUSE_GRAPH", instanceId, "pause");
  }

  async stop(instanceId: string): Promise<ControlResult> {
    const instance = await this.load(instanceId);
    if (instance.status === "stopped") return result("STOP_GRAPH", instance);
    return this.requestDrain("STOP_GRAPH", instanceId, "stop");
  }

  async resume(instanceId: string, options: { step?: boolean } = {}): Promise<ControlResult> {
    await this.settled(instanceId);
    const mark = await this.mark(instanceId);
    const version = await this.write(async () => {
      const instance = await this.lock(instanceId);
      if (busy(instance)) {
        throw invalidState(instanceId, instance.status, `${options.step ? "step" : "resume"} accepts PAUSED instances only`);
      }
      const waiting = waitingFor(instance);
      if (isAgentApprovalRequest(waiting)) {
        throw invalidState(instanceId, instance.status, `agent ${waiting.node} waits for approval of ${waiting.tool}: approve or deny it instead`);
      }
      if (waiting) throw invalidState(instanceId, instance.status, "it waits for human input: answer it instead");
      await this.options.cluster.resumeIn(instanceId, { kind: "resume", instanceId, ...(options.step ? { step: true } : {}) });
      return instance.version;
    });
    return this.afterStart(options.step ? "STEP" : "RESUME_GRAPH", { instanceId, mark, version });
  }

  async setBreakpoints(instanceId: string, nodes: readonly string[]): Promise<ControlResult & { breakpoints: string[] }> {
    const instance = await this.load(instanceId);
    const breakpoints = checkBreakpoints(instance.nodeIdMap, nodes);
    await this.write(async () => {
      await this.store.updateAttrs(instanceId, { [BREAKPOINTS_ATTR]: breakpoints });
      await this.options.cluster.announce({ kind: "breakpoints", instanceId });
    });
    return { ...result("SET_BREAKPOINTS", await this.load(instanceId)), breakpoints };
  }

  /**
   * ANSWER: checked and recorded under the instance's row lock, with the resume job, in one
   * transaction: of answers sent at once from any web processes exactly one is accepted (one resume
   * job); the others get the single process's INVALID_STATE ("not waiting for human input").
   */
  async answer(instanceId: string, value: unknown, by: Author | string = "unknown", claim?: ClaimKey): Promise<ControlResult> {
    await this.settled(instanceId);
    const mark = await this.mark(instanceId);
    const version = await this.write(async () => {
      const instance = await this.lock(instanceId);
      const answer = answerOf(instance, value, by, busy(instance));
      await this.store.updateAttrs(instanceId, { [ANSWERS_ATTR]: [...answersOf(instance), answer] });
      await claim?.(`${instance.version}`);
      await this.options.cluster.resumeIn(instanceId, { kind: "resume", instanceId, value: value ?? null }, "answer");
      return instance.version;
    });
    return this.afterStart("ANSWER", { instanceId, mark, version });
  }

  /** APPROVE / DENY: one decision per wait, as `answer`. */
  async decide(args: { instanceId: string; approved: boolean; reason?: string; by?: Author | string; transactionId?: string; claim?: ClaimKey }): Promise<ControlResult> {
    const { instanceId } = args;
    await this.settled(instanceId);
    const mark = await this.mark(instanceId);
    const version = await this.write(async () => {
      const instance = await this.lock(instanceId);
      const { record, decision } = decisionOf(instance, args, busy(instance));
      await this.store.updateAttrs(instanceId, { [APPROVALS_ATTR]: [...approvalsOf(instance), record] });
      await args.claim?.(`${instance.version}`);
      await this.options.cluster.resumeIn(instanceId, { kind: "resume", instanceId, value: decision }, "decision");
      return instance.version;
    });
    return this.afterStart(args.approved ? "APPROVE" : "DENY", { instanceId, mark, version });
  }

  async reinvoke(instanceId: string, input: unknown, claim?: ClaimKey): Promise<ControlResult> {
    const mark = await this.mark(instanceId);
    let version = 0;
    await this.write(() =>
      this.options.cluster.reinvokeIn(instanceId, input, (instance) => {
        version = instance.version + 1; // the version its run makes
        return claim?.(`${version}`);
      }),
    );
    return this.afterStart("REINVOKE", { instanceId, mark, version });
  }

  /**
   * RECOVER: checked and marked due (`resume_due`, kind "recover") under the instance's row lock with its
   * job, as a resume is: until a worker starts the run the instance still reads crashed, so the mark is
   * what shows it queued and refuses a second recover, as the single process refuses one of the
   * running instance its first recover made.
   */
  async recover(instanceId: string): Promise<ControlResult> {
    const mark = await this.mark(instanceId);
    const version = await this.write(async (tx) => {
      const instance = await this.lock(instanceId);
      if (instance.status !== "crashed") throw invalidState(instanceId, instance.status, "only a crashed instance is recovered");
      if (resumeDueOf(instance)) throw invalidState(instanceId, instance.status, "its recovery is already due (a worker starts it)");
      await this.markDue(instanceId, "recover");
      await this.options.cluster.dueIn(tx, { kind: "recover", instanceId });
      return instance.version;
    });
    return this.afterStart("RECOVER", { instanceId, mark, version });
  }

  async deliver(args: { instanceId: string; node: string; content: unknown; claim?: ClaimKey }): Promise<DeliverResult> {
    const instance = await this.load(args.instanceId);
    if (instance.status === "stopped") throw invalidState(args.instanceId, "stopped", "a stopped instance takes no delivers");
    const pending = externalDeliver(instance, args.node, args.content);
    const { deliverId } = pending;
    const pickup = pickupOf(instance.status);
    const mark = await this.mark(args.instanceId);
    await this.write(async (tx) => {
      // A run it starts (a completed or failed instance's version N+1, a crashed one's recovery) is
      // marked due as a reinvoke or recover is, under the row lock; a running or paused run is not
      // locked (a worker may be writing it) and takes the deliver as it is.
      const starts = pickup === "new_run" || pickup === "recovery_run" ? await this.lock(args.instanceId) : null;
      await new PgDeliverStore({ acks: tx, steps: tx }).appendPending(pending);
      await args.claim?.(deliverId);
      await appendEvent(tx, instance, {
        type: "deliver_promoted",
        instanceId: args.instanceId,
        deliverId,
        source: EXTERNAL_SOURCE,
        target: args.node === END ? END : args.node,
        payload: args.content,
      });
      if (instance.status === "paused") return; // consumed when it resumes
      const job: WorkJob =
        instance.status === "crashed"
          ? { kind: "recover", instanceId: args.instanceId }
          : { kind: "deliver", instanceId: args.instanceId, node: args.node, input: args.content ?? null };
      // Only while it still reads as it did (else a run has started meanwhile), and not over work
      // already due (a queued reinvoke or recover keeps its mark; this job follows its run).
      if (starts && starts.status === instance.status && !resumeDueOf(starts)) await this.markDue(args.instanceId, pickup === "new_run" ? "deliver" : "recover");
      await this.options.cluster.dueIn(tx, job);
      if (instance.status === "running") await this.options.cluster.announceIn(tx, { kind: "wake", instanceId: args.instanceId, node: args.node });
    });
    // A new run (version N+1) or a recovery run: answered once a worker started it, as on one process.
    const now =
      pickup === "new_run" || pickup === "recovery_run"
        ? await this.afterStart("DELIVER_TO_NODE", { instanceId: args.instanceId, mark, version: instance.version + (pickup === "new_run" ? 1 : 0) })
        : result("DELIVER_TO_NODE", await this.load(args.instanceId));
    return { ...now, deliverId, pickup };
  }

  async archive(instanceId: string, archived = true): Promise<ArchiveResult> {
    await this.load(instanceId);
    await this.write(() => this.requireArchive().setArchived(instanceId, archived, Date.now()));
    return { instanceId, archived };
  }

  /**
   * DELETE: checked under the row lock (a resume accepted at the same moment either commits first and
   * its job is deleted with the instance, or finds no instance); the instance's rows, its lease and
   * the jobs no worker fetched yet go in one transaction.
   */
  async delete(instanceId: string): Promise<{ instanceId: string; deleted: true }> {
    await this.write(async (tx) => {
      const instance = await this.lock(instanceId);
      if (instance.status === "running") throw invalidState(instanceId, instance.status, "a running instance cannot be deleted: stop it first");
      await this.requireArchive().delete(instanceId);
      await this.options.cluster.forgetIn(tx, instanceId);
    });
    this.options.onDeleted?.(instanceId);
    return { instanceId, deleted: true };
  }

  /**
   * Pause or stop of a run: checked and stored (lease and attrs) in one transaction that holds the
   * lease row and the instance row, then announced and the drain awaited. A request is stored only for
   * a run that has not ended: a running instance, or a paused one whose accepted resume a worker is
   * about to start or starting (`resume_due` set, or its lease held). That run delivers the answer
   * first and then pauses or stops (the engine's entry node is not a safe point of a resume), as on a
   * single process, where the resumed run is already going when the request comes. A request that
   * finds the run over stores nothing for a later run: a pause is refused (or idempotent on a paused
   * instance); a stop stops a paused instance at once, in the same transaction.
   */
  private async requestDrain(command: ControlCommand, instanceId: string, kind: "pause" | "stop"): Promise<ControlResult> {
    const done: InstanceStatus = kind === "pause" ? "paused" : "stopped";
    const until = Date.now() + (this.options.drainWaitMs ?? 2_000);
    for (;;) {
      // The lease row first, then the instance's: a worker's step takes them in that order (the fence
      // trigger reads the lease FOR SHARE before the step updates the instance's state), so the other
      // order deadlocks with a step in flight and PostgreSQL aborts one of the two (the run failed).
      const outcome = await this.write(async (tx) => {
        const { held } = await this.options.cluster.lockIn(tx, instanceId);
        const instance = await this.lock(instanceId);
        const resumed = instance.status === "paused" && (resumeDueOf(instance) !== null || held);
        if (instance.status === "running" || resumed) {
          await this.options.cluster.requestIn(tx, instanceId, kind);
          await this.store.updateAttrs(instanceId, { [CONTROL_REQUEST_ATTR]: kind });
          return null;
        }
        if (kind !== "stop" || instance.status !== "paused") return instance;
        const stopped = await this.store.transition(instanceId, "stopped", ["paused"]);
        await statusEvent(tx, instance, "stopped");
        return stopped;
      });
      if (outcome) {
        if (outcome.status === done) return result(command, outcome);
        throw invalidState(instanceId, outcome.status, `only a running${kind === "stop" ? " or paused" : ""} instance can be ${done}`);
      }
      const now = await this.drained(instanceId, until);
      // A stop whose run paused instead (the lease was held by the worker that had just paused the run
      // and released it, dropping the request; or the resumed run reached a new question before the
      // stop reached it): nothing is due now, so the paused instance is stopped at once.
      if (kind === "stop" && now.instance.status === "paused" && !now.pending) continue;
      return { ...result(command, now.instance), draining: now.pending };
    }
  }

  /**
   * Polls until the run the request was stored for is over (the instance left RUNNING, and no accepted
   * resume of it is still to start or still holds its lease) or `until`.
   */
  private async drained(instanceId: string, until: number): Promise<{ instance: GraphInstanceRecord; pending: boolean }> {
    for (;;) {
      const instance = await this.load(instanceId);
      const pending = instance.status === "running" || (instance.status === "paused" && (resumeDueOf(instance) !== null || (await this.leaseHeld(instanceId))));
      if (!pending || Date.now() >= until) return { instance, pending };
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  private async leaseHeld(instanceId: string): Promise<boolean> {
    const { rows } = await this.options.db.query<{ status: InstanceStatus; held: boolean | null }>({
      name: "modex_cluster_settling",
      text: SETTLING_SQL,
      values: [instanceId],
    });
    return rows[0]?.held === true;
  }

  /**
   * The reply of a command that made a run of the instance due (its job committed): once a worker has
   * started that run (a `run_started` of `version` or later logged after `mark`), the instance as it is
   * then, as the single process answers once the run it starts is going: `running` (or what the run
   * reached meanwhile: a Step's next pause, an end), the new version of a reinvoke. The run's start is
   * read from the event log, not the row: the row moves before the start's events are written, and the
   * instance view follows those events, so a reply sent after them shows no status they do not show
   * yet. A worker that has not started it within `startWaitMs` (none is running, all are busy, the
   * job waits for a retry): `queued`, with the version the run is to run, never the status from
   * before the command as if it had not been taken.
   */
  private async afterStart(command: ControlCommand, due: { instanceId: string; mark: string; version: number }): Promise<ControlResult> {
    const { instanceId, mark, version } = due;
    const until = Date.now() + (this.options.startWaitMs ?? 2_000);
    // Listening before the first read of the log: a start committed after that read is announced after it.
    const signal = this.options.events ? new RunStartSignal(this.options.events, instanceId) : null;
    try {
      for (;;) {
        const { rows } = await this.options.db.query<{ started: boolean }>({ name: "modex_cluster_started", text: STARTED_SQL, values: [instanceId, mark, version] });
        if (rows[0]?.started) return result(command, await this.load(instanceId));
        const left = until - Date.now();
        if (left <= 0) return { command, instanceId, version, status: "queued" };
        if (signal) await signal.next(Math.min(left, START_FALLBACK_MS));
        else await new Promise((r) => setTimeout(r, Math.min(left, START_POLL_MS)));
      }
    } finally {
      signal?.[Symbol.dispose]();
    }
  }


  /** Marks a run due (`resume_due`) in the command's transaction; its start clears it (InstanceRun). */
  private markDue(instanceId: string, kind: ResumeDue["kind"]): Promise<unknown> {
    return this.store.updateAttrs(instanceId, { [RESUME_DUE_ATTR]: { kind, at: Date.now() } satisfies ResumeDue });
  }

  private async mark(instanceId: string): Promise<string> {
    const { rows } = await this.options.db.query<{ mark: string }>({ name: "modex_cluster_event_mark", text: MARK_SQL, values: [instanceId] });
    return rows[0]?.mark ?? "0";
  }

  /**
   * Waits while the instance is PAUSED and a worker still holds its lease: the run that paused it is
   * settling (it commits the paused status, then saves what it waits for and its events, then releases
   * the lease), so an answer sent the moment the pause shows finds what it answers, and its resume job
   * finds the lease free. Bounded by the drain wait (a worker that hangs: its job is taken again later).
   */
  private async settled(instanceId: string): Promise<void> {
    const until = Date.now() + (this.options.drainWaitMs ?? 2_000);
    for (;;) {
      const { rows } = await this.options.db.query<{ status: InstanceStatus; held: boolean | null }>({
        name: "modex_cluster_settling",
        text: SETTLING_SQL,
        values: [instanceId],
      });
      if (rows[0]?.status !== "paused" || !rows[0].held || Date.now() >= until) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /**
   * The latest version, its row locked until the command's transaction ends (call inside `write`). Its
   * lease row is locked first, the instance row NOWAIT (ClusterControl.lockIn: the command is run again
   * while a worker's statement holds it).
   */
  private async lock(instanceId: string): Promise<GraphInstanceRecord> {
    await this.options.cluster.lockIn(this.options.db, instanceId);
    const instance = await this.store.loadForUpdate(instanceId);
    if (!instance) throw notFound("instance", instanceId);
    return instance;
  }

  private requireArchive(): InstanceArchive {
    if (!this.options.archive) throw new ServiceError("BAD_REQUEST", "archiving and deleting are not available on this server");
    return this.options.archive;
  }

  private async load(instanceId: string): Promise<GraphInstanceRecord> {
    const instance = await this.store.load(instanceId);
    if (!instance) throw notFound("instance", instanceId);
    return instance;
  }

  /** One transaction; a storage failure says what failed (a 503/507 at the API), never a silent loss. */
  private async write<T>(fn: (tx: PgQueryable) => Promise<T> | T): Promise<T> {
    try {
      return await retryWhileBusy(() => this.options.db.transaction(async (tx) => fn(tx)));
    } catch (error) {
      if (isPgStorageError(error)) throw new ServiceError("STORAGE_UNAVAILABLE", `PostgreSQL refused the write: ${(error as Error).message}`);
      throw toServiceError(error);
    }
  }
}

/** How often a reply waiting for a run's start reads the event log (a primary-key range read). */
const START_POLL_MS = 10;
/** With a live feed: how often it reads the log without a wake (a NOTIFY may be lost with its connection). */
const START_FALLBACK_MS = 200;

/** Not to be resumed now: not paused, or paused with a resume already accepted that no worker started yet. */
function busy(instance: GraphInstanceRecord): boolean {
  return instance.status !== "paused" || resumeDueOf(instance) !== null;
}

function pickupOf(status: InstanceStatus): DeliverResult["pickup"] {
  switch (status) {
    case "running":
      return "running";
    case "paused":
      return "on_resume";
    case "completed":
    case "failed":
      return "new_run";
    case "crashed":
      return "recovery_run";
    default:
      return "later";
  }
}

/** An event of a web process's command, in its transaction (the insert's trigger NOTIFYs at commit). */
export function appendEvent(tx: PgQueryable, instance: GraphInstanceRecord, event: EngineEvent): Promise<unknown> {
  return tx.query({ text: INSERT_EVENT_SQL, values: [instance.instanceId, instance.version, event.type, JSON.stringify(event)] });
}

function statusEvent(tx: PgQueryable, instance: GraphInstanceRecord, to: InstanceStatus): Promise<unknown> {
  return appendEvent(tx, instance, { type: "instance_status", instanceId: instance.instanceId, version: instance.version, from: instance.status, to });
}

function result(command: ControlCommand, instance: GraphInstanceRecord): ControlResult {
  return { command, instanceId: instance.instanceId, version: instance.version, status: instance.status };
}
