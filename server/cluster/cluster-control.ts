import { newSnowflake } from "@/server/graph/ids";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { GraphPayload } from "@/server/graph/payload";
import type { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { inTransaction, type PgQueryable } from "@/server/db/pg/pg-database";
import { PgDeliverStore } from "@/server/db/pg/pg-deliver-store";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { externalDeliver } from "@/server/services/control-checks";
import { invalidState, notFound } from "@/server/services/errors";
import { RESUME_DUE_ATTR, resumeDueOf, type ResumeDue } from "@/server/services/resume-due";
import { BREAKPOINTS_ATTR, checkBreakpoints } from "@/server/services/breakpoints";
import { announceControl, type ControlMessage } from "./control-channel";
import { retryWhileBusy } from "./cluster-errors";
import type { Dispatch, WorkJob } from "./dispatch";


/**
 * Makes work due: a free lease expires after a grace period (a job waiting for a worker), after which
 * the sweeper requeues it if no worker took it up; a free lease row is created if none exists. A lease
 * a worker holds is left as it is (that worker is woken instead).
 */
const DUE_SQL = `INSERT INTO cluster_leases (instance_id, owner, epoch, expires_at)
    VALUES ($1, NULL, 0, now() + $2 * interval '1 millisecond')
  ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE cluster_leases.owner IS NULL`;
const REQUEST_SQL = `UPDATE cluster_leases SET requested = $2 WHERE instance_id = $1`;
const LOCK_LEASE_SQL = `SELECT (owner IS NOT NULL AND expires_at > now()) AS held FROM cluster_leases
  WHERE instance_id = $1 FOR UPDATE`;
const LOCK_INSTANCE_SQL = `SELECT 1 FROM graph_instances WHERE instance_id = $1 AND is_latest FOR UPDATE NOWAIT`;
const CLEAR_REQUEST_SQL = `UPDATE cluster_leases SET requested = NULL WHERE instance_id = $1`;

export interface ClusterControlOptions {
  /**
   * An unfenced pool (the web process's): control writes are not a run's writes. A PgAppDatabase's
   * transactions join the caller's, so a command's other writes commit with its job.
   */
  db: PgQueryable | PgAppDatabase;
  dispatch: Dispatch;
  /** How long new work waits for a worker before the sweeper requeues it. Default 10 s. */
  graceMs?: number;
}

/**
 * What any process (a web process, a test, the CLI through REST) does to instances that workers run:
 * each state change and the job that makes it due commit in one transaction; a pause or stop is stored
 * on the lease (the owner sees it at its next heartbeat) and announced at once on `modex_control`.
 */
export class ClusterControl {
  private readonly graceMs: number;
  constructor(private readonly options: ClusterControlOptions) {
    this.graceMs = options.graceMs ?? 10_000;
  }

  /**
   * Creates the instance (running, not started) and its `run` job. `specId`: the spec revision it was
   * compiled from (workers compile that one); `breakpoints`: node names it pauses before.
   */
  async create(args: { graph: CompiledGraph<any>; input: unknown; instanceId?: string; specId?: string; breakpoints?: readonly string[] }): Promise<string> {
    const instanceId = args.instanceId ?? newSnowflake();
    const breakpoints = args.breakpoints?.length ? checkBreakpoints(args.graph.nodeIdMap, args.breakpoints) : null;
    await this.inTx(async (tx) => {
      const store = new PgGraphInstanceStore({ acks: tx, steps: tx });
      await store.create({
        instanceId,
        graphName: args.graph.name,
        specId: args.specId,
        nodeIdMap: args.graph.nodeIdMap,
        input: args.input as GraphPayload,
        attrs: breakpoints ? { [BREAKPOINTS_ATTR]: breakpoints } : undefined,
      });
      await this.due(tx, instanceId);
      await this.options.dispatch.enqueueIn(tx, { instanceId, kind: "run" });
    });
    return instanceId;
  }

  /** Many instances in one transaction (a batch of `create`s). */
  async createMany(args: { graph: CompiledGraph<any>; inputs: { instanceId: string; input: unknown }[] }): Promise<void> {
    await this.inTx(async (tx) => {
      const store = new PgGraphInstanceStore({ acks: tx, steps: tx });
      for (const { instanceId, input } of args.inputs) {
        await store.create({ instanceId, graphName: args.graph.name, nodeIdMap: args.graph.nodeIdMap, input: input as GraphPayload });
        await this.due(tx, instanceId);
        await this.options.dispatch.enqueueIn(tx, { instanceId, kind: "run" });
      }
    });
  }

  /** Pause (or stop): honoured by the running worker at its next safe point. */
  async request(instanceId: string, kind: "pause" | "stop"): Promise<void> {
    await this.inTx(async (tx) => {
      await tx.query({ text: REQUEST_SQL, values: [instanceId, kind] });
      await announceControl(tx, { kind, instanceId });
    });
  }

  /**
   * Resumes a paused instance on whichever worker takes the job; held at a breakpoint, it continues
   * past it. `step`: the next node runs, then it holds again.
   */
  resume(instanceId: string, options: { step?: boolean } = {}): Promise<void> {
    return this.resumeIn(instanceId, { instanceId, kind: "resume", ...(options.step ? { step: true } : {}) });
  }

  /** Answers an interrupted (paused) instance: its run resumes at the interrupting node with `value`. */
  answer(instanceId: string, value: unknown): Promise<void> {
    return this.resumeIn(instanceId, { instanceId, kind: "resume", value: value ?? null }, "answer");
  }

  /** New input to a completed or failed instance: version N+1 runs fresh on whichever worker takes it. */
  reinvoke(instanceId: string, input: unknown): Promise<void> {
    return this.reinvokeIn(instanceId, input);
  }

  /**
   * REINVOKE, checked under the instance's row lock and marked due (`resume_due`, cleared when version
   * N+1 starts) with its job, joining the caller's transaction: until a worker starts that version the
   * instance still reads completed, and a second reinvoke then is refused with INVALID_STATE, as the
   * single process refuses one of a running instance, instead of being accepted and dropped by the
   * worker (its job names version N, which the first one's run has left behind). `beforeJob`: the
   * caller's writes of the same transaction (an Idempotency-Key's claim).
   */
  async reinvokeIn(instanceId: string, input: unknown, beforeJob?: (record: GraphInstanceRecord) => unknown): Promise<void> {
    await this.inTx(async (tx) => {
      const store = new PgGraphInstanceStore({ acks: tx, steps: tx });
      await this.lockIn(tx, instanceId);
      const record = await store.loadForUpdate(instanceId);
      if (!record) throw notFound("instance", instanceId);
      if (record.status !== "completed" && record.status !== "failed") {
        throw invalidState(instanceId, record.status, "only a completed or failed instance takes new input");
      }
      if (resumeDueOf(record)) throw invalidState(instanceId, "running", `version ${record.version + 1} is already due (a worker starts it)`);
      await store.updateAttrs(instanceId, { [RESUME_DUE_ATTR]: { kind: "reinvoke", at: Date.now() } satisfies ResumeDue });
      await beforeJob?.(record);
      await this.dueIn(tx, { instanceId, kind: "reinvoke", input: input ?? null, version: record.version });
    });
  }

  /**
   * Makes a PAUSED instance's `job` (a resume, an answer, a decision) due; joins the caller's
   * transaction. Checked under the instance's row lock and marked (`resume_due`) in the same
   * transaction, so of two resumes sent at once, from any processes, exactly one is accepted and the
   * other is refused with INVALID_STATE, as the single process refuses a resume of a running instance.
   */
  async resumeIn(instanceId: string, job: WorkJob, kind: ResumeDue["kind"] = "resume"): Promise<void> {
    await this.inTx(async (tx) => {
      const store = new PgGraphInstanceStore({ acks: tx, steps: tx });
      await this.lockIn(tx, instanceId);
      const record = await store.loadForUpdate(instanceId);
      if (!record) throw notFound("instance", instanceId);
      if (record.status !== "paused") throw invalidState(instanceId, record.status, "only a paused instance is resumed");
      if (resumeDueOf(record)) throw invalidState(instanceId, record.status, "its resume is already due (a worker starts it)");
      await store.updateAttrs(instanceId, { [RESUME_DUE_ATTR]: { kind, at: Date.now() } satisfies ResumeDue });
      await tx.query({ text: CLEAR_REQUEST_SQL, values: [instanceId] });
      await this.dueIn(tx, job);
    });
  }

  /**
   * DELIVER_TO_NODE: a PENDING ledger row for `node`, a `deliver` job, and a wake for the worker running
   * the instance, in one transaction. A paused instance consumes it when resumed.
   */
  async deliver(args: { instanceId: string; node: string; content: unknown }): Promise<void> {
    await this.inTx(async (tx) => {
      const record = await new PgGraphInstanceStore({ acks: tx, steps: tx }).load(args.instanceId);
      if (!record) throw new Error(`no instance ${args.instanceId}`);
      await new PgDeliverStore({ acks: tx, steps: tx }).appendPending(externalDeliver(record, args.node, args.content));
      if (record.status === "paused") return;
      await this.due(tx, args.instanceId);
      await this.options.dispatch.enqueueIn(tx, { instanceId: args.instanceId, kind: "deliver", node: args.node });
      await announceControl(tx, { kind: "wake", instanceId: args.instanceId, node: args.node });
    });
  }

  /**
   * Makes `job` due: its lease row waits for a worker (or the sweeper) and the job is enqueued, in `tx`;
   * idle workers are told to fetch at its commit (`due`), as a command's reply waits for its start.
   */
  async dueIn(tx: PgQueryable, job: WorkJob): Promise<void> {
    await this.due(tx, job.instanceId);
    await this.options.dispatch.enqueueIn(tx, job);
    await announceControl(tx, { kind: "due", instanceId: job.instanceId });
  }

  /** A pause or stop stored on the lease (seen at the owner's next heartbeat) and announced, in `tx`. */
  async requestIn(tx: PgQueryable, instanceId: string, kind: "pause" | "stop"): Promise<void> {
    await tx.query({ text: REQUEST_SQL, values: [instanceId, kind] });
    await announceControl(tx, { kind, instanceId });
  }

  /**
   * Locks the instance's lease row, then its latest row, until `tx` ends, and says whether a live
   * worker holds the lease. A worker's statements take the two in either order (a step's first write
   * reads the lease FOR SHARE, then writes the instance; a statement that first updates the instance
   * locks that row, then its fence trigger reads the lease), so a command waiting for one while holding
   * the other can deadlock with a run, and PostgreSQL then may abort the run's transaction. The instance
   * row is therefore taken NOWAIT: when a worker holds it, the command gives way (isRowBusy: its
   * transaction is run again a moment later, `retryWhileBusy`).
   */
  async lockIn(tx: PgQueryable, instanceId: string): Promise<{ held: boolean }> {
    const { rows } = await tx.query<{ held: boolean }>({ text: LOCK_LEASE_SQL, values: [instanceId] });
    await tx.query({ text: LOCK_INSTANCE_SQL, values: [instanceId] });
    return { held: rows[0]?.held === true };
  }

  /** A deleted instance's jobs that no worker fetched yet are deleted with it, in `tx`. */
  async forgetIn(tx: PgQueryable, instanceId: string): Promise<void> {
    await this.options.dispatch.dropPendingIn(tx, instanceId);
  }

  /** Announces a control message on commit of `tx`. */
  announceIn(tx: PgQueryable, message: ControlMessage): Promise<void> {
    return announceControl(tx, message);
  }

  /** Announces a control message in a transaction of its own (or the caller's). */
  announce(message: ControlMessage): Promise<void> {
    return this.inTx((tx) => announceControl(tx, message));
  }

  private due(tx: PgQueryable, instanceId: string) {
    return tx.query({ text: DUE_SQL, values: [instanceId, this.graceMs] });
  }

  /** `fn` in a transaction (the caller's, if one is open; a transaction of its own is run again while busy). */
  private inTx<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T> {
    const { db } = this.options;
    if ("inTransaction" in db && db.inTransaction) return inTransaction(db, fn);
    return retryWhileBusy(() => inTransaction(db, fn));
  }
}
