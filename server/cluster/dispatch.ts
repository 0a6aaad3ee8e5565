import pg from "pg";
import PgBoss from "pg-boss";
import type { PgQueryable } from "@/server/db/pg/pg-database";

/** The pg-boss queue every worker works. */
export const WORK_QUEUE = "modex-instance-work";

/**
 * Work to do for an instance; a worker runs it as the single-process app would (see job-plan.ts):
 * - `run`: start a created instance (fresh), or recover it if a run of it had started;
 * - `resume`: a paused instance continues, with `value` (an answer, an approval decision) when set,
 *   and `step` (run the next node, then hold again);
 * - `recover`: a crashed instance or one whose worker's lease expired, by the engine's RECOVERY;
 * - `deliver`: an external row waits for `node`: the running run is woken; a completed or failed
 *   instance gets a wake run (version N+1) seeded by its pending external rows (`input`, the
 *   content, is informative: the rows are what the run consumes);
 * - `reinvoke`: new input (`input`) to a completed or failed instance: version N+1, fresh; `version`,
 *   when given, the version it follows (a job run again after its new version began starts no other).
 */
export type WorkKind = "run" | "resume" | "deliver" | "recover" | "reinvoke";
export interface WorkJob {
  instanceId: string;
  kind: WorkKind;
  node?: string;
  value?: unknown;
  step?: boolean;
  input?: unknown;
  version?: number;
}

/** Jobs of one instance that no worker fetched yet (pg-boss's own table, read as pg-boss's docs show). */
const PENDING_SQL = `SELECT id FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry') AND data->>'instanceId' = $2`;

export interface DispatchOptions {
  url: string;
  /** Connections of pg-boss's own pool. Default 2. */
  maxConnections?: number;
  /** Whether this process runs pg-boss's maintenance (expiry, retention). Workers do; web processes need not. */
  supervise?: boolean;
  /**
   * Commit pg-boss's own statements (fetching and completing jobs) with `synchronous_commit = off`.
   * Safe for workers: a job's completion lost in a crash of the PostgreSQL server runs the job again,
   * and a job only starts work through a lease. (Enqueueing goes through the caller's transaction.)
   */
  asyncCommit?: boolean;
}

/**
 * pg-boss on the same database as the engine (its own schema, `pgboss`). Work is enqueued with
 * `enqueueIn(tx, job)`, in the transaction of the state change that makes it due: both commit or
 * neither does, so no state change is lost between commit and enqueue.
 */
export class Dispatch {
  readonly boss: PgBoss;

  private constructor(boss: PgBoss) {
    this.boss = boss;
  }

  /** Starts pg-boss (installing or migrating its schema under its own lock) and creates the queue. */
  static async start(options: DispatchOptions): Promise<Dispatch> {
    const boss = new PgBoss({
      ...(options.asyncCommit ? ({ options: "-c synchronous_commit=off" } as object) : {}),
      connectionString: options.url,
      max: options.maxConnections ?? 2,
      application_name: "modex-dispatch",
      supervise: options.supervise ?? true,
      schedule: false,
    });
    boss.on("error", (error) => console.warn(`[modex dispatch] ${error.message}`));
    await boss.start();
    await createWorkQueueOnce(boss, options.url);
    return new Dispatch(boss);
  }

  /** Enqueues `job` through `tx` (a transaction's client): committed with the transaction. */
  async enqueueIn(tx: PgQueryable, job: WorkJob): Promise<void> {
    const db = { executeSql: (text: string, values: unknown[]) => tx.query({ text, values }) };
    await this.boss.send(WORK_QUEUE, job, { db });
  }

  /**
   * Deletes the jobs of `instanceId` no worker has fetched yet (created, or waiting for a retry),
   * through `tx`: committed with it (a deleted instance's). A job a worker already fetched finds no
   * instance and does nothing.
   */
  async dropPendingIn(tx: PgQueryable, instanceId: string): Promise<number> {
    const { rows } = await tx.query<{ id: string }>({
      name: "modex_dispatch_pending",
      text: PENDING_SQL,
      values: [WORK_QUEUE, instanceId],
    });
    if (rows.length === 0) return 0;
    const db = { executeSql: (text: string, values: unknown[]) => tx.query({ text, values }) };
    await this.boss.deleteJob(WORK_QUEUE, rows.map((r) => r.id), { db });
    return rows.length;
  }

  stop(): Promise<void> {
    return this.boss.stop({ graceful: false, wait: true });
  }
}

/** The session advisory lock under which a process looks for the work queue and creates it. */
const QUEUE_LOCK_SQL = "SELECT pg_advisory_lock(hashtextextended('modex.dispatch.work-queue', 0))";

/**
 * Creates the work queue unless it exists, one process at a time: pg-boss's `createQueue` run by two
 * processes at once deadlocks (the second's insert of the queue row waits for the first's transaction,
 * whose foreign key to that table waits for the second's insert), and the loser failed to start.
 */
async function createWorkQueueOnce(boss: PgBoss, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: "modex-dispatch" });
  await client.connect();
  try {
    await client.query(QUEUE_LOCK_SQL);
    if (await boss.getQueue(WORK_QUEUE)) return;
    await boss.createQueue(WORK_QUEUE, { name: WORK_QUEUE, policy: "standard", retryLimit: 5, retryDelay: 1, expireInSeconds: 300 });
  } finally {
    await client.end(); // the session's end releases its lock
  }
}
