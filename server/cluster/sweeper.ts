import { inTransaction, type PgQueryable } from "@/server/db/pg/pg-database";
import type { Dispatch } from "./dispatch";

/** The advisory lock of a sweep ("msweep" in ASCII): one sweep at a time across the cluster. */
const SWEEP_LOCK = 0x6d7377656570;

/**
 * Instances whose lease expired: held by a worker that died, or lost the database for longer than the
 * lease; or free with work due that no worker took up in its grace period (its job was lost with a
 * worker that had fetched it). A released lease never expires (expires_at = infinity) until new work
 * makes it due. That covers a run whose worker died after the run's last commit, maybe before storing its
 * last events (see finish-repair.ts). Locked, so a worker acquiring one of them at this moment is
 * either before (not expired any more) or after the sweep.
 */
const EXPIRED_SQL = `SELECT l.instance_id FROM cluster_leases l
  WHERE l.expires_at < now()
  ORDER BY l.expires_at LIMIT $1
  FOR UPDATE OF l SKIP LOCKED`;

/**
 * Frees the lease (the old owner, if it still lives, is fenced out: owner and epoch changed) and gives
 * the recovery job a grace period in which no sweep requeues it again.
 */
const REQUEUE_SQL = `UPDATE cluster_leases SET owner = NULL, epoch = epoch + 1, requested = NULL,
    expires_at = now() + $2 * interval '1 millisecond'
  WHERE instance_id = ANY($1::text[])`;

export interface SweepOptions {
  db: PgQueryable;
  dispatch: Dispatch;
  /** How long a requeued instance waits for a worker before the next sweep requeues it again. */
  graceMs: number;
  batch?: number;
}

/**
 * One sweep: under a transaction-scoped advisory lock (a sweep already in progress elsewhere makes this
 * one a no-op), requeue every running instance whose lease expired with a `recover` job, in the same
 * transaction. Any worker then recovers it from the ledger (bootstrap RECOVERY). Returns the instances
 * requeued, or null when another process was sweeping.
 */
export async function sweepOnce(options: SweepOptions): Promise<string[] | null> {
  return inTransaction(options.db, async (tx) => {
    const { rows: lock } = await tx.query<{ ok: boolean }>({ text: "SELECT pg_try_advisory_xact_lock($1) AS ok", values: [SWEEP_LOCK] });
    if (!lock[0].ok) return null;
    const { rows } = await tx.query<{ instance_id: string }>({ text: EXPIRED_SQL, values: [options.batch ?? 500] });
    const ids = rows.map((r) => r.instance_id);
    if (ids.length === 0) return ids;
    await tx.query({ text: REQUEUE_SQL, values: [ids, options.graceMs] });
    for (const instanceId of ids) await options.dispatch.enqueueIn(tx, { instanceId, kind: "recover" });
    return ids;
  });
}
