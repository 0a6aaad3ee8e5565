import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import pg from "pg";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { EngineObserver } from "@/server/graph/events";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { GraphRunControl } from "@/server/graph/run-control";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";
import { breakpointsOf } from "@/server/services/breakpoints";
import { InstanceRun } from "@/server/services/instance-run";
import { resumeDueOf } from "@/server/services/resume-due";
import { isLeaseLost } from "./cluster-errors";
import { ControlListener, type ControlMessage } from "./control-channel";
import { Dispatch, WORK_QUEUE, type WorkJob } from "./dispatch";
import { EventWriter } from "./event-writer";
import { FencedCoordinator } from "./fenced-coordinator";
import { repairRunFinished } from "./finish-repair";
import { loadJobInstance } from "./job-instance";
import { planJob } from "./job-plan";
import { LeaseStore, type HeldLease } from "./lease-store";
import { ProcessHeartbeat } from "./process-heartbeat";
import { sweepOnce } from "./sweeper";
import { openWorkerDatabase } from "./worker-database";

/**
 * The compiled graph an instance runs: its spec revision (`specId`) when it has one, else by graph name
 * (a worker runs only graphs it can compile). The worker binds it to the instance's node ids.
 */
export type GraphCatalog = (instance: GraphInstanceRecord) => CompiledGraph<any> | Promise<CompiledGraph<any>>;

export interface ClusterWorkerOptions {
  url: string;
  graphs: GraphCatalog;
  /** Default: a random id per process start (an owner id is never reused). */
  workerId?: string;
  /** Lease time. Default 10 s; heartbeats every third of it. */
  leaseMs?: number;
  /** Sweep interval. Default half the lease time. */
  sweepMs?: number;
  /** Instances run at once. Default 16. */
  concurrency?: number;
  /**
   * Connections of each of the engine's two pools (steps, and the synchronous commits). Default 6.
   * Fewer keep fewer statements in flight on PostgreSQL: on a server with few cores, busy with several
   * workers, its CPU per step is lower (docs/cluster.md, "A second worker's cost per chain").
   */
  connections?: number;
  /** pg-boss polling interval (≥ 0.5 s). Default 0.5 s. */
  pollSeconds?: number;
  /** Also sees every engine event this worker emits (after it is stored or not). */
  observer?: EngineObserver;
  /**
   * Whether the worker keeps its own row in cluster_processes (role `worker`, under its worker id), so
   * the cluster status lists it. Default true. False in a web process with MODEX_ROLE=all: its own
   * heartbeat, under the same id (pass its executor id as `workerId`), stands for both.
   */
  processRow?: boolean;
  /** A web process asked for agent nodes' live text again (`live_resync`): the relay of this worker's agent runs resends it. */
  onLiveResync?: () => void;
}

interface LocalRun extends HeldLease {
  /** The control of the run in progress (a wake run after it gets a new one). */
  control: GraphRunControl;
  abort: AbortController;
  lost: boolean;
  /** A pause or stop stored on the lease, as the last acquisition or heartbeat read it. */
  requested: "pause" | "stop" | null;
  /**
   * Grows when a run here settles and the lease's request was dropped: a heartbeat (or a control
   * message's read) begun before that must not hand the dropped request to the next run.
   */
  generation: number;
  /** An external deliver arrived during the run: look for unconsumed rows when it ends. */
  wakeRequested: boolean;
  /** The job found no instance (deleted): its lease is dropped, not released. */
  gone?: boolean;
}

/**
 * A worker process's cluster role: works the pg-boss queue; for each job acquires the instance's lease,
 * runs the instance with the engine (fresh, or bootstrap RECOVERY continuing from the ledger), renews
 * all its leases in one statement per heartbeat, releases at the end; sweeps expired leases (one sweep
 * at a time across the cluster); obeys pause/stop/wake from any process. Its database connections are
 * fenced (worker-database.ts): once it lost a lease it cannot write for that instance again, and the
 * run is abandoned at its next write or at the heartbeat that finds the lease gone, whichever is first.
 */
export class ClusterWorker {
  readonly workerId: string;
  readonly leaseMs: number;
  private readonly runs = new Map<string, LocalRun>();
  private readonly waiting: (() => void)[] = [];
  /** Jobs being taken (a lease being acquired): `stop` waits for them, then for the runs they started. */
  private readonly taking = new Set<Promise<void>>();
  private timers: NodeJS.Timeout[] = [];
  private workId: string | null = null;
  private stopping = false;
  private heartbeatSuspendedUntil = 0;
  /** Counters for health and tests. */
  readonly stats = { started: 0, finished: 0, lost: 0, swept: 0 };

  private constructor(
    private readonly options: ClusterWorkerOptions,
    readonly db: PgEngineDatabase,
    private readonly leasePool: pg.Pool,
    readonly coordinator: FencedCoordinator,
    readonly leases: LeaseStore,
    readonly dispatch: Dispatch,
    private readonly events: EventWriter,
    private control: ControlListener | null,
    private readonly processBeat: ProcessHeartbeat | null,
  ) {
    this.workerId = leases.owner;
    this.leaseMs = leases.leaseMs;
  }

  static async start(options: ClusterWorkerOptions): Promise<ClusterWorker> {
    const workerId = options.workerId ?? `w${randomBytes(6).toString("hex")}`;
    const leaseMs = options.leaseMs ?? 10_000;
    const db = openWorkerDatabase({ url: options.url, workerId, maxConnections: options.connections ?? 6 });
    const coordinator = new FencedCoordinator(db);
    // Heartbeats and sweeps on connections of their own: never queued behind the runs' statements.
    // Lease changes commit asynchronously (no WAL flush per acquire or release): they promise nothing
    // to a caller, and a crash of the PostgreSQL server loses a suffix of the log, never a lease change
    // without the writes that followed it.
    const leasePool = new pg.Pool({
      connectionString: options.url,
      max: 2,
      application_name: `modex-lease-${workerId}`.slice(0, 63),
      options: "-c synchronous_commit=off",
    });
    leasePool.on("error", () => undefined);
    const leases = new LeaseStore(leasePool, workerId, leaseMs);
    const dispatch = await Dispatch.start({ url: options.url, asyncCommit: true });
    const events = new EventWriter({ db: db.steps, beforeWrite: () => coordinator.flush(), owner: workerId });
    const processBeat =
      options.processRow === false
        ? null
        : await ProcessHeartbeat.start({ db: leasePool, executor: { id: workerId, host: hostname(), pid: process.pid }, role: "worker", leaseMs });
    const worker = new ClusterWorker(options, db, leasePool, coordinator, leases, dispatch, events, null, processBeat);
    worker.control = await ControlListener.start(options.url, (m) => worker.onControl(m));
    worker.timers.push(setInterval(() => void worker.heartbeat(), Math.max(50, leaseMs / 3)));
    worker.timers.push(setInterval(() => void worker.sweep(), options.sweepMs ?? Math.max(100, leaseMs / 2)));
    const concurrency = options.concurrency ?? 16;
    worker.workId = await dispatch.boss.work<WorkJob>(
      WORK_QUEUE,
      { batchSize: concurrency, pollingIntervalSeconds: options.pollSeconds ?? 0.5 },
      async (jobs) => {
        for (const job of jobs) {
          const taking = worker.take(job.data, concurrency);
          worker.taking.add(taking);
          await taking.finally(() => worker.taking.delete(taking));
        }
      },
    );
    return worker;
  }

  /** Instances running here now. */
  get running(): string[] {
    return [...this.runs.keys()];
  }

  /** The pause or stop the run of `instanceId` here was asked so far (its control), for health and tests. */
  requestOf(instanceId: string): "pause" | "stop" | null {
    return this.runs.get(instanceId)?.control.request ?? null;
  }

  /** Stops taking work, waits for the runs here (or abandons them after `waitMs`), closes everything. */
  async stop(waitMs = 5_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const wake of this.waiting.splice(0)) wake(); // jobs waiting for a slot are left to pg-boss's retry
    if (this.workId) await this.dispatch.boss.offWork({ id: this.workId });
    // A job taken as the worker stopped (pg-boss does not wait for it) started its run after all: its
    // run is waited for below. Before, it ran on closed pools and its lease stayed held until it expired.
    await Promise.allSettled([...this.taking]);
    // The heartbeat goes on while the runs here finish (no sweep runs once stopping): a run longer than
    // the lease was swept and run again by another worker meanwhile, its nodes twice.
    const until = Date.now() + waitMs;
    while (this.runs.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    for (const t of this.timers) clearInterval(t);
    for (const run of this.runs.values()) run.abort.abort();
    await this.control?.close();
    await this.dispatch.stop();
    await this.events.flush();
    await this.coordinator.flush().catch(() => undefined);
    await this.coordinator.instances.writeHeld().catch(() => undefined);
    await this.db.close();
    await this.processBeat?.stop({ leave: true });
    await this.leasePool.end();
  }

  /** Waits for a free slot, then starts the job's run (not awaited: the slot is held until it ends). */
  private async take(job: WorkJob, concurrency: number): Promise<void> {
    const running = this.runs.get(job.instanceId);
    if (running) {
      if (job.kind === "deliver" && job.node) {
        running.wakeRequested = true;
        running.control.wake(job.node);
      }
      // A recover, resume or reinvoke of a run still ending here (it may have lost its lease): the job
      // comes back a moment later, when the run here is gone. (If this process dies first, the sweeper
      // requeues.)
      if (job.kind === "recover" || job.kind === "resume" || job.kind === "reinvoke") await this.dispatch.boss.send(WORK_QUEUE, job, { startAfter: 1 });
      return;
    }
    while (this.runs.size >= concurrency && !this.stopping) await new Promise<void>((r) => this.waiting.push(r));
    if (this.stopping) throw new Error("worker stopping"); // pg-boss retries the job elsewhere
    // Jobs are taken one at a time (one batch after another), so nothing else acquires for this
    // instance here between this check and the acquisition: re-acquiring a lease a run here holds would
    // change its epoch under it.
    if (this.runs.has(job.instanceId)) return;
    const lease = await this.leases.acquire(job.instanceId);
    if (!lease) {
      // Another live worker holds it. Work accepted while the worker whose run paused (completed,
      // crashed) it still releases its lease (a resume, reinvoke, recover or deliver marked due) is
      // taken again a moment later; any other job is that worker's to do.
      if (job.kind !== "run" && (await this.resumeDue(job.instanceId))) await this.dispatch.boss.send(WORK_QUEUE, job, { startAfter: 1 });
      return;
    }
    // The lease's request is not applied here: the plan says whether it is for the run this job starts
    // (a running, crashed or resumed instance) or left over from an ended one (runJob drops it).
    const run: LocalRun = { ...lease, control: new GraphRunControl(), abort: new AbortController(), lost: false, wakeRequested: false, generation: 0 };
    this.runs.set(job.instanceId, run);
    this.stats.started++;
    void this.execute(job, run).finally(() => {
      this.runs.delete(job.instanceId);
      const next = this.waiting.shift();
      if (next) next();
      else if (this.workId && !this.stopping) this.dispatch.boss.notifyWorker(this.workId); // fetch now, not at the next poll
    });
  }

  private async execute(job: WorkJob, run: LocalRun): Promise<void> {
    const { instanceId } = job;
    try {
      // A deliver that arrived while the run ended may have found no node left to consume it: once the
      // run is over (failed included), the same lease runs a wake for it, as GraphOrchestrator does.
      let next: WorkJob | null = job;
      while (next) {
        run.wakeRequested = false;
        try {
          await this.runJob(next, run);
        } catch (error) {
          if (isLeaseLost(error) || run.lost) {
            this.stats.lost++;
            return;
          }
          if (!isDrainOrInterrupt(error)) console.warn(`[modex worker ${this.workerId}] ${instanceId}: ${(error as Error).message}`);
        }
        next = run.wakeRequested && !run.lost ? { instanceId, kind: "deliver" } : null;
        if (next) {
          // The run that was asked to pause or stop is over: its request is not the wake run's.
          await this.dropEndedRequest(run);
          run.control = new GraphRunControl();
        }
      }
    } finally {
      // A state or output the run saved with no status change after it (its end failed): written now.
      await this.coordinator.instances.writeHeld(instanceId).catch(() => undefined);
      // The lease is released in the statement that writes the run's last events, when there are some
      // (they are written after the steps they describe: the writer flushes the coordinator first).
      const released = await this.events.forget(instanceId, run.gone || run.lost ? undefined : run);
      if (!released) {
        await this.coordinator.flush().catch(() => undefined);
        if (run.gone) await this.leases.dropGone(run).catch(() => undefined);
        else if (!run.lost) await this.leases.release(run).catch(() => undefined);
      }
      this.stats.finished++;
    }
  }

  /**
   * One job's run, planned as the single process would start it (job-plan.ts) and run by the shared
   * InstanceRun with this worker's fenced coordinator: the same attrs (what it waits for, where it
   * holds, retry backoffs), breakpoints, resume values and honoured requests as in the app.
   */
  private async runJob(job: WorkJob, run: LocalRun): Promise<void> {
    const { instanceId } = job;
    const loaded = await loadJobInstance(this.db.acks, instanceId);
    if (!loaded) {
      run.gone = true;
      return;
    }
    const { record, started } = loaded;
    const ended = record.status === "completed" || record.status === "failed";
    const wake = ended && job.kind === "deliver" ? await this.pendingExternal(instanceId) : undefined;
    if (run.requested && (ended || record.status === "stopped")) await this.dropEndedRequest(run); // a dead worker's run ended with it
    const action = planJob(job, record, { started, requested: run.requested, wake });
    if (action.kind === "none") return;
    if (action.kind === "repair") {
      await repairRunFinished(this.db.steps, instanceId);
      return;
    }
    const graph = bound(await this.options.graphs(record), record.nodeIdMap);
    const current = action.crashFirst ? await this.markCrashed(record) : record;
    // A run given no input starts with its version's, read with the instance.
    const plan = action.plan.input === undefined ? { ...action.plan, input: loaded.input } : action.plan;
    const instanceRun = new InstanceRun(plan, { control: run.control });
    // No owner attrs: the lease names the worker that runs it. Nothing else changes the instance's
    // status or version while this worker holds its lease: the run starts from the record read here.
    await instanceRun.execute(graph, { coordinator: this.coordinator, events: this.observerFor(), ownership: {}, signal: run.abort.signal, current });
  }

  /**
   * A run of it had started on a worker that died: CRASHED, and said so in the event log as the single
   * process's sweeper says it (StaleInstanceSweeper.markCrashed), before the recovery's `crashed → running`.
   */
  private async markCrashed(record: GraphInstanceRecord): Promise<GraphInstanceRecord> {
    const crashed = await this.coordinator.instances.transition(record.instanceId, "crashed");
    const { instanceId, version } = record;
    this.observerFor().onEvent({ type: "instance_status", instanceId, version, from: record.status, to: "crashed" });
    return crashed;
  }

  /**
   * Drops the lease's pause or stop request once the run it was made for is over (the instance neither
   * running nor paused with a resume due), so the instance's next run (a reinvoke, a wake) does not
   * start with it. The release drops it too; this is for a run that follows under the same lease.
   */
  private async dropEndedRequest(run: LocalRun): Promise<void> {
    if (await this.leases.dropEndedRequest(run)) {
      run.requested = null;
      run.generation++;
    }
  }

  /** Reads the lease's request for the run here (a control message said one was stored). */
  private async refreshRequest(run: LocalRun): Promise<void> {
    const generation = run.generation;
    try {
      const requested = await this.leases.requested(run);
      if (requested === undefined || run.generation !== generation || this.runs.get(run.instanceId) !== run) return;
      this.applyRequest(run, requested);
    } catch {
      // the next heartbeat reads it
    }
  }

  private applyRequest(run: LocalRun, requested: LocalRun["requested"]): void {
    run.requested = requested;
    if (requested === "pause") run.control.requestPause();
    if (requested === "stop") run.control.requestStop();
  }

  /** The content of the first external deliver still pending (what a wake run starts with), if any. */
  private async pendingExternal(instanceId: string): Promise<unknown> {
    const pending = await this.coordinator.delivers.listByStatus(instanceId, ["PENDING"]);
    const external = pending.find((r) => r.sourceInvocationId === null);
    return external ? (external.content ?? null) : undefined;
  }

  private observerFor(): EngineObserver {
    const extra = this.options.observer;
    if (!extra) return this.events;
    return { onEvent: (e) => (this.events.onEvent(e), extra.onEvent(e)) };
  }

  /** Whether the instance is marked due (`resume_due`: work accepted, its run not started yet). */
  private async resumeDue(instanceId: string): Promise<boolean> {
    const record = await this.coordinator.instances.load(instanceId);
    return !!record && record.status !== "running" && resumeDueOf(record) !== null;
  }

  /**
   * For tests: no heartbeat and no sweep for `ms`, and no new job from now on, as for a worker whose
   * database connection is gone that long (its runs go on until a write is refused).
   */
  suspendHeartbeat(ms: number): void {
    this.heartbeatSuspendedUntil = Date.now() + ms;
    if (this.workId) void this.dispatch.boss.offWork({ id: this.workId });
  }

  /** Renews every lease held here in one statement; a run whose lease is gone is abandoned at once. */
  private async heartbeat(): Promise<void> {
    if (Date.now() < this.heartbeatSuspendedUntil) return;
    const held = [...this.runs.values()].filter((r) => !r.lost);
    if (held.length === 0) return;
    const generations = new Map(held.map((r) => [r, r.generation]));
    let renewed;
    try {
      renewed = await this.leases.renew(held);
    } catch {
      return; // the database is unreachable: the fence keeps a lease that expires meanwhile safe
    }
    const kept = new Map(renewed.map((r) => [r.instanceId, r]));
    for (const run of held) {
      const r = kept.get(run.instanceId);
      if (!r) {
        run.lost = true;
        run.abort.abort();
        run.control.requestStop(); // no further node starts; its writes are refused anyway
        continue;
      }
      if (run.generation === generations.get(run)) this.applyRequest(run, r.requested);
    }
  }

  private async sweep(): Promise<void> {
    if (this.stopping || Date.now() < this.heartbeatSuspendedUntil) return;
    try {
      const swept = await sweepOnce({ db: this.leasePool, dispatch: this.dispatch, graceMs: this.leaseMs });
      if (swept) this.stats.swept += swept.length;
    } catch (error) {
      console.warn(`[modex worker ${this.workerId}] sweep failed: ${(error as Error).message}`);
    }
  }

  private onControl(message: ControlMessage): void {
    if (message.kind === "due") {
      if (this.workId && !this.stopping && this.runs.size < (this.options.concurrency ?? 16)) this.dispatch.boss.notifyWorker(this.workId);
      return;
    }
    if (message.kind === "live_resync") {
      this.options.onLiveResync?.();
      return;
    }
    const run = this.runs.get(message.instanceId);
    if (!run) return;
    switch (message.kind) {
      case "pause":
      case "stop":
        // The lease row says what is asked of the run here now: a message that arrives late (its run
        // over, the next one started under the same lease) must not pause the next run.
        void this.refreshRequest(run);
        return;
      case "wake":
        run.wakeRequested = true;
        run.control.wake(message.node);
        return;
      case "breakpoints":
        void this.reloadBreakpoints(run);
    }
  }

  /** The instance's breakpoints changed (its attrs): the run here takes them at once, as in the app. */
  private async reloadBreakpoints(run: LocalRun): Promise<void> {
    try {
      const record = await this.coordinator.instances.load(run.instanceId);
      if (record && this.runs.get(run.instanceId) === run) run.control.setBreakpoints(breakpointsOf(record));
    } catch {
      // the next run reads them from the attrs
    }
  }
}

/** The graph with the instance's frozen node ids (not re-bound when they are already its own). */
function bound(graph: CompiledGraph<any>, nodeIdMap: Readonly<Record<string, string>>): CompiledGraph<any> {
  const own = graph.nodeIdMap;
  const same = Object.keys(nodeIdMap).length === Object.keys(own).length && Object.entries(nodeIdMap).every(([k, v]) => own[k] === v);
  return same ? graph : graph.withNodeIds(nodeIdMap);
}

function isDrainOrInterrupt(error: unknown): boolean {
  const name = (error as { name?: string })?.name ?? "";
  return /Drained|Interrupt/.test(name);
}
