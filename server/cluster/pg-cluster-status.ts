import type { PgQueryable } from "@/server/db/pg/pg-database";
import {
  isClusterRole,
  type ClusterLeaseStatus,
  type ClusterProcessStatus,
  type ClusterQueueStatus,
  type ClusterStatus,
  type ClusterStatusSource,
} from "@/server/services/cluster-status";
import { WORK_QUEUE } from "./dispatch";

const SQL = {
  /**
   * Every heartbeat row with the leases its process holds, and every lease owner without a row (a
   * worker of a version that kept none, or one whose row was forgotten a day after it died). Ages and
   * expiry by the database's clock, as the heartbeat and the sweeper judge them.
   */
  processes: `WITH owners AS (
      SELECT owner, count(*) FILTER (WHERE expires_at >= now())::int AS leases,
        count(*) FILTER (WHERE expires_at < now())::int AS expired_leases
      FROM cluster_leases WHERE owner IS NOT NULL GROUP BY owner)
    SELECT coalesce(p.process_id, o.owner) AS id, coalesce(p.role, 'worker') AS role, p.host, p.pid,
      to_char(p.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS started_at,
      (extract(epoch FROM now() - p.beat_at) * 1000)::float8 AS beat_age_ms,
      (p.process_id IS NULL OR p.expires_at < now()) AS expired,
      coalesce(o.leases, 0) AS leases, coalesce(o.expired_leases, 0) AS expired_leases
    FROM cluster_processes p FULL JOIN owners o ON o.owner = p.process_id
    ORDER BY (p.process_id IS NULL OR p.expires_at < now()), CASE coalesce(p.role, 'worker') WHEN 'web' THEN 0 WHEN 'all' THEN 1 ELSE 2 END, p.started_at, id`,
  leases: `SELECT count(*) FILTER (WHERE owner IS NOT NULL AND expires_at >= now())::int AS held,
      count(*) FILTER (WHERE expires_at < now())::int AS expired,
      count(*) FILTER (WHERE owner IS NULL AND expires_at >= now() AND expires_at <> 'infinity')::int AS waiting,
      to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
    FROM cluster_leases`,
  /** pg-boss's own table, read as its getQueueSize does (states below 'active' wait to be fetched). */
  queue: `SELECT count(*) FILTER (WHERE state < 'active')::int AS queued,
      count(*) FILTER (WHERE state < 'active' AND start_after <= now())::int AS due,
      count(*) FILTER (WHERE state = 'active')::int AS active
    FROM pgboss.job WHERE name = $1`,
} as const;

interface ProcessRow {
  id: string;
  role: string;
  host: string | null;
  pid: number | null;
  started_at: string | null;
  beat_age_ms: number | null;
  expired: boolean;
  leases: number;
  expired_leases: number;
}

/**
 * The cluster's status on PostgreSQL, read from the tables the processes already keep: heartbeats
 * (cluster_processes), leases (cluster_leases) and pg-boss's jobs. Read-only, a few counting
 * statements: cheap enough to poll every few seconds from a page.
 */
export class PgClusterStatus implements ClusterStatusSource {
  constructor(
    private readonly db: PgQueryable,
    /** The id of the process answering (its executor id), marked `self`. */
    private readonly self: string,
  ) {}

  async read(): Promise<ClusterStatus> {
    const [processes, leases, queue] = await Promise.all([
      this.db.query<ProcessRow>({ name: "modex_cluster_status_processes", text: SQL.processes }),
      this.db.query<ClusterLeaseStatus & { at: string }>({ name: "modex_cluster_status_leases", text: SQL.leases }),
      this.db.query<ClusterQueueStatus>({ name: "modex_cluster_status_queue", text: SQL.queue, values: [WORK_QUEUE] }),
    ]);
    const { at, ...leaseCounts } = leases.rows[0];
    return {
      mode: "cluster",
      at,
      processes: processes.rows.map((r) => this.processOf(r)),
      leases: leaseCounts,
      queue: queue.rows[0],
    };
  }

  private processOf(r: ProcessRow): ClusterProcessStatus {
    return {
      id: r.id,
      // Roles are written from MODEX_ROLE (validated) or by a worker; any other value is a worker's.
      role: isClusterRole(r.role) ? r.role : "worker",
      host: r.host,
      pid: r.pid,
      startedAt: r.started_at,
      heartbeatAgeMs: r.beat_age_ms === null ? null : Math.max(0, Math.round(r.beat_age_ms)),
      expired: r.expired,
      leases: r.leases,
      expiredLeases: r.expired_leases,
      self: r.id === this.self,
    };
  }
}
