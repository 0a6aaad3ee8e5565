import type { ExecutorIdentity } from "./executor-identity";

/** A process's part in a PostgreSQL cluster (MODEX_ROLE; `worker` for `npm run worker`). */
export type ClusterRole = "web" | "worker" | "all";

export const CLUSTER_ROLES: readonly ClusterRole[] = ["web", "worker", "all"];

export function isClusterRole(value: string): value is ClusterRole {
  return (CLUSTER_ROLES as readonly string[]).includes(value);
}

/** One process of the cluster, as its heartbeat row (cluster_processes) and its leases show it. */
export interface ClusterProcessStatus {
  /** A web process's executor id, a worker's worker id: the owner its leases name. */
  id: string;
  role: ClusterRole;
  /** Null for a lease owner with no heartbeat row (a worker of a version before workers beat, or one forgotten a day after it died). */
  host: string | null;
  pid: number | null;
  /** ISO 8601; null without a heartbeat row. */
  startedAt: string | null;
  /** Milliseconds since its last heartbeat (database clock); null without a heartbeat row. */
  heartbeatAgeMs: number | null;
  /** Its heartbeat expired (or it has none): dead for the cluster; its leases expire and are swept. */
  expired: boolean;
  /** Instances it holds an unexpired lease on (runs it is running). */
  leases: number;
  /** Its leases that expired and wait for the sweeper to requeue them. */
  expiredLeases: number;
  /** The process that answered this request. */
  self: boolean;
}

/** The pg-boss work queue (modex-instance-work). */
export interface ClusterQueueStatus {
  /** Jobs no worker fetched yet (pg-boss states created and retry). */
  queued: number;
  /** Of those, the ones due now (the rest wait for a retry delay or a start time). */
  due: number;
  /** Jobs a worker fetched and has not finished. */
  active: number;
}

/** Instance leases (cluster_leases) across the cluster. */
export interface ClusterLeaseStatus {
  /** Held by a worker and not expired. */
  held: number;
  /** Expired: the next sweep requeues them (a dead worker's, or due work no worker took up). */
  expired: number;
  /** Free with work due (new work, or requeued by a sweep), waiting for a worker to take it up within the grace period. */
  waiting: number;
}

export type ClusterStatus =
  | {
      mode: "single";
      /** Server time, ISO 8601. */
      at: string;
      /** This process: it runs everything, on SQLite. */
      process: { id: string; host: string; pid: number; startedAt: string; running: number };
    }
  | {
      mode: "cluster";
      at: string;
      /** Live processes first (web, all, worker), then expired ones. */
      processes: ClusterProcessStatus[];
      leases: ClusterLeaseStatus;
      queue: ClusterQueueStatus;
    };

/** Reads the status of the cluster this process belongs to (read-only). */
export interface ClusterStatusSource {
  read(): Promise<ClusterStatus>;
}

/**
 * The status on SQLite: one process runs everything (the data directory's lock keeps others out), so
 * there is no cluster to read, only this process and the instances running in it.
 */
export function singleProcessStatus(args: { executor: ExecutorIdentity; startedAt: Date; running: () => number }): ClusterStatusSource {
  const { executor, startedAt } = args;
  return {
    read: async () => ({
      mode: "single",
      at: new Date().toISOString(),
      process: { id: executor.id, host: executor.host, pid: executor.pid, startedAt: startedAt.toISOString(), running: args.running() },
    }),
  };
}
