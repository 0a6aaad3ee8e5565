import type { PgQueryable } from "@/server/db/pg/pg-database";
import type { ExecutorIdentity } from "@/server/services/executor-identity";

const SQL = {
  beat: `INSERT INTO cluster_processes (process_id, role, host, pid, started_at, expires_at, beat_at)
    VALUES ($1, $2, $3, $4, now(), now() + $5 * interval '1 millisecond', now())
    ON CONFLICT (process_id) DO UPDATE SET expires_at = EXCLUDED.expires_at, beat_at = EXCLUDED.beat_at`,
  leave: "DELETE FROM cluster_processes WHERE process_id = $1",
  /** Rows of processes dead for a day: nobody asks about them any more. */
  forget: "DELETE FROM cluster_processes WHERE expires_at < now() - interval '1 day'",
} as const;

/**
 * A process's heartbeat on `cluster_processes`: a web process's under its executor id (the run id every
 * process takes at start, see executor-identity.ts), a worker's under its worker id (cluster-worker.ts),
 * the owner its leases name. The row expires `leaseMs` after each beat, and beats come
 * every third of that, as a worker renews its instance leases (lease-store.ts). A process whose row
 * expired is dead for the cluster: the chat turns it owned are ended by a live one (chat-turn-reaper.ts).
 * Not a row of `cluster_leases`: the sweeper takes every expired row there for an instance to requeue.
 * The database's clock decides expiry, so the processes' clocks need not agree.
 */
export class ProcessHeartbeat {
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The timer's beat in flight: a leave waits for it (a beat committed after the leave would bring the row back). */
  private beating: Promise<void> | null = null;

  private constructor(
    private readonly db: PgQueryable,
    readonly executor: ExecutorIdentity,
    private readonly role: string,
    readonly leaseMs: number,
  ) {}

  /** Beats once (the process is alive when this resolves), then every third of the lease. */
  static async start(args: { db: PgQueryable; executor: ExecutorIdentity; role: string; leaseMs: number }): Promise<ProcessHeartbeat> {
    const heartbeat = new ProcessHeartbeat(args.db, args.executor, args.role, args.leaseMs);
    await heartbeat.beat();
    await args.db.query({ text: SQL.forget });
    heartbeat.timer = setInterval(() => heartbeat.tick(), Math.max(50, Math.floor(args.leaseMs / 3)));
    heartbeat.timer.unref?.();
    return heartbeat;
  }

  async beat(): Promise<void> {
    const { id, host, pid } = this.executor;
    await this.db.query({ name: "modex_process_beat", text: SQL.beat, values: [id, this.role, host, pid, this.leaseMs] });
  }

  /** A timer's beat: one at a time; a failed one is left to the next. */
  private tick(): void {
    this.beating ??= this.beat()
      .catch(() => undefined)
      .finally(() => (this.beating = null));
  }

  /** Stops beating; `leave`: the row goes now (a clean stop), so the turns this process still owned are ended at once. */
  async stop(options: { leave: boolean }): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    if (options.leave) await this.db.query({ text: SQL.leave, values: [this.executor.id] }).catch(() => undefined);
  }
}
