import type { PgQueryable } from "@/server/db/pg/pg-database";

/** A lease this worker holds: the fencing epoch it was granted with. */
export interface HeldLease {
  instanceId: string;
  epoch: number;
}

/** What a renewal reports for each lease still held: a pause or stop asked of its run, if any. */
export interface RenewedLease extends HeldLease {
  requested: "pause" | "stop" | null;
}

/**
 * A release's SET clause, of the row `l` (cluster_leases): free. Nothing is due (the sweeper looks at it
 * again only once new work makes it due) unless the run ended with the instance still running
 * (abandoned after a lost connection): then it is due at once.
 */
export const RELEASED_SET = `owner = NULL, requested = NULL,
      expires_at = CASE WHEN EXISTS (SELECT 1 FROM graph_instances g
        WHERE g.instance_id = l.instance_id AND g.is_latest AND g.status = 'running') THEN now() ELSE 'infinity' END`;

const SQL = {
  /** Only if free (no owner), expired, or already ours; the epoch grows on every acquisition. */
  acquire: `INSERT INTO cluster_leases (instance_id, owner, epoch, expires_at)
    VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
    ON CONFLICT (instance_id) DO UPDATE SET owner = $2, epoch = cluster_leases.epoch + 1, expires_at = EXCLUDED.expires_at
    WHERE cluster_leases.owner IS NULL OR cluster_leases.owner = $2 OR cluster_leases.expires_at < now()
    RETURNING epoch, requested`,
  /** One statement for all of a worker's leases; a lease taken over (other owner or epoch) is not renewed. */
  renew: `UPDATE cluster_leases l SET expires_at = now() + $4 * interval '1 millisecond'
    FROM unnest($2::text[], $3::int[]) AS h(instance_id, epoch)
    WHERE l.instance_id = h.instance_id AND l.epoch = h.epoch AND l.owner = $1
    RETURNING l.instance_id, l.epoch, l.requested`,
  /** Free (RELEASED_SET). EventWriter.forget releases with a run's last events instead, when it can. */
  release: `UPDATE cluster_leases l SET ${RELEASED_SET} WHERE instance_id = $1 AND owner = $2 AND epoch = $3`,
  /** The pause or stop stored on the lease, if it is still this one. */
  requested: `SELECT requested FROM cluster_leases WHERE instance_id = $1 AND owner = $2 AND epoch = $3`,
  /**
   * The request dropped, if still this lease, once the run it was made for is over: not while the
   * instance runs, nor while it is paused with a resume accepted (a pause stored for that resume is
   * its run's). A pause checks and stores under this row's lock (ClusterGraphControl.requestDrain), so
   * one stored for a resume is never dropped here.
   */
  dropEndedRequest: `UPDATE cluster_leases SET requested = NULL
    WHERE instance_id = $1 AND owner = $2 AND epoch = $3 AND requested IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM graph_instances g WHERE g.instance_id = $1 AND g.is_latest
        AND (g.status = 'running' OR (g.status = 'paused' AND jsonb_typeof(g.attrs->'resume_due') = 'object')))`,
  /** Deleted, if still this one and its instance no longer exists (a job outlived its deleted instance). */
  dropGone: `DELETE FROM cluster_leases WHERE instance_id = $1 AND owner = $2 AND epoch = $3
    AND NOT EXISTS (SELECT 1 FROM graph_instances g WHERE g.instance_id = $1)`,
} as const;

/**
 * Leases of instances (table cluster_leases). A lease names the worker that runs an instance until
 * `expires_at`; the worker renews all of its leases in one statement per heartbeat. Every write a
 * worker's connections make for an instance is fenced by the lease (see worker-database.ts).
 */
export class LeaseStore {
  constructor(
    private readonly db: PgQueryable,
    readonly owner: string,
    readonly leaseMs: number,
  ) {}

  /** The lease, or null when another worker holds it and it has not expired. */
  async acquire(instanceId: string): Promise<(HeldLease & { requested: RenewedLease["requested"] }) | null> {
    const { rows } = await this.db.query<{ epoch: number; requested: RenewedLease["requested"] }>({
      name: "modex_lease_acquire",
      text: SQL.acquire,
      values: [instanceId, this.owner, this.leaseMs],
    });
    return rows.length > 0 ? { instanceId, epoch: rows[0].epoch, requested: rows[0].requested } : null;
  }

  /** Renews every lease in `held`; returns those still held (a missing one was lost). */
  async renew(held: readonly HeldLease[]): Promise<RenewedLease[]> {
    if (held.length === 0) return [];
    const { rows } = await this.db.query<{ instance_id: string; epoch: number; requested: RenewedLease["requested"] }>({
      name: "modex_lease_renew",
      text: SQL.renew,
      values: [this.owner, held.map((h) => h.instanceId), held.map((h) => h.epoch), this.leaseMs],
    });
    return rows.map((r) => ({ instanceId: r.instance_id, epoch: r.epoch, requested: r.requested }));
  }

  /** The request stored on the lease; undefined when the lease is no longer this one. */
  async requested(lease: HeldLease): Promise<RenewedLease["requested"] | undefined> {
    const { rows } = await this.db.query<{ requested: RenewedLease["requested"] }>({
      name: "modex_lease_requested",
      text: SQL.requested,
      values: [lease.instanceId, this.owner, lease.epoch],
    });
    return rows.length > 0 ? rows[0].requested : undefined;
  }

  /** Drops the lease's request once its run is over (see SQL.dropEndedRequest); true if one was dropped. */
  async dropEndedRequest(lease: HeldLease): Promise<boolean> {
    const { rowCount } = await this.db.query({ name: "modex_lease_drop_ended_request", text: SQL.dropEndedRequest, values: [lease.instanceId, this.owner, lease.epoch] });
    return (rowCount ?? 0) > 0;
  }

  /** Deletes the lease if it is still this one and its instance was deleted (nothing is left to run). */
  async dropGone(lease: HeldLease): Promise<void> {
    await this.db.query({ name: "modex_lease_drop_gone", text: SQL.dropGone, values: [lease.instanceId, this.owner, lease.epoch] });
  }

  /** Frees the lease if it is still this one (same owner and epoch). */
  async release(lease: HeldLease): Promise<boolean> {
    const { rowCount } = await this.db.query({ name: "modex_lease_release", text: SQL.release, values: [lease.instanceId, this.owner, lease.epoch] });
    return (rowCount ?? 0) > 0;
  }
}
