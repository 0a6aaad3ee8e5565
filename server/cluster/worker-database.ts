import pg from "pg";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";

export interface WorkerDatabaseOptions {
  url: string;
  /** The worker's owner id: what the fence compares with the lease's owner. */
  workerId: string;
  maxConnections?: number;
}

/**
 * The engine's two pools (see PgEngineDatabase) for a worker: every connection carries the worker's
 * owner id as `modex.worker`, so the fence trigger refuses any write of an instance whose lease this
 * worker does not hold — on every path (node begin/complete, delivers, state, status, events), whatever
 * code issues it. `steps` commits asynchronously, as openPgEngineDatabase's does.
 */
export function openWorkerDatabase(options: WorkerDatabaseOptions): PgEngineDatabase {
  if (!/^[A-Za-z0-9_.:-]+$/.test(options.workerId)) throw new Error(`invalid worker id ${options.workerId}`);
  const base: pg.PoolConfig = {
    connectionString: options.url,
    max: options.maxConnections ?? 4,
    application_name: `modex-worker-${options.workerId}`.slice(0, 63),
  };
  const fence = `-c modex.worker=${options.workerId}`;
  const acks = watched(new pg.Pool({ ...base, options: fence }));
  const steps = watched(new pg.Pool({ ...base, options: `${fence} -c synchronous_commit=off` }));
  return {
    acks,
    steps,
    close: async () => {
      await Promise.all([acks.end(), steps.end()]);
    },
  };
}

function watched(pool: pg.Pool): pg.Pool {
  pool.on("error", (error) => console.warn(`[modex worker] PostgreSQL connection lost: ${error.message}`));
  return pool;
}
