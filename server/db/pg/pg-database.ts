import pg from "pg";

/**
 * The engine's connections to one PostgreSQL database: two pools that differ in one setting only.
 *
 * - `acks` commits synchronously (PostgreSQL's default, `synchronous_commit = on`): what a caller is told
 *   or may announce — an instance created, a status change, an external deliver — is on disk when the
 *   call returns.
 * - `steps` carries the engine's node lifecycle steps (begin + claim, completion + outbox + state, a
 *   cancel, a failure, recovery). With `stepCommit: "async"` (the default) it commits with
 *   `synchronous_commit = off`: a step is committed and visible to every connection when it returns, and
 *   survives the death of the process that wrote it (kill -9), but PostgreSQL flushes it to disk a moment
 *   later (at most ~3 × wal_writer_delay, 600 ms by default) — or at once when any later synchronous
 *   commit flushes the log past it. WAL is flushed in order, so the run's acknowledged end (its status
 *   change, on `acks`) makes every step before it durable too. Only a crash of the PostgreSQL server or
 *   its machine can lose the last unflushed steps, and then it loses a suffix: recovery re-runs those
 *   nodes from the last flushed state (node bodies are at least once). A synchronous commit costs ~4 ms
 *   on these machines' disks; a node step ~0.1–0.2 ms. `stepCommit: "sync"` commits every step
 *   synchronously.
 */
export interface PgEngineDatabase extends PgStoreConnections {
  readonly acks: pg.Pool;
  readonly steps: pg.Pool;
  /** Ends both pools (waits for checked-out clients to be released). */
  close(): Promise<void>;
}

/** What the stores write through: the two pools, gated ones (see GatedPool), or one transaction's client. */
export interface PgStoreConnections {
  readonly acks: PgQueryable;
  readonly steps: PgQueryable;
}

/** What the stores query through: a pool, or one client inside a transaction. */
export interface PgQueryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

export interface PgEngineDatabaseOptions {
  /** postgresql://user@host:port/database */
  url: string;
  /** Connections per pool (two pools). Default 4. */
  maxConnections?: number;
  /** See PgEngineDatabase. Default "async". */
  stepCommit?: "async" | "sync";
  /** Names this process in pg_stat_activity. */
  applicationName?: string;
}

/** Opens the two pools (connections are made on first use). */
export function openPgEngineDatabase(options: PgEngineDatabaseOptions): PgEngineDatabase & { readonly pools: pg.Pool[] } {
  const base: pg.PoolConfig = {
    connectionString: options.url,
    max: options.maxConnections ?? 4,
    application_name: options.applicationName ?? "modex",
  };
  const acks = watched(new pg.Pool(base));
  const steps = options.stepCommit === "sync" ? acks : watched(new pg.Pool({ ...base, options: "-c synchronous_commit=off" }));
  const pools = acks === steps ? [acks] : [acks, steps];
  return {
    acks,
    steps,
    pools,
    close: async () => {
      await Promise.all(pools.map((p) => p.end()));
    },
  };
}

/**
 * An idle pooled client whose connection breaks emits `error` on the pool; unhandled, that would end
 * the process. The pool drops the client and the next query opens a new connection.
 */
function watched(pool: pg.Pool): pg.Pool {
  pool.on("error", (error) => console.warn(`[modex] PostgreSQL connection lost: ${error.message}`));
  return pool;
}

/**
 * A pool whose every query and checkout first awaits `before()`: the PostgreSQL coordinator hands its
 * stores these, so anything read or written through them comes after the steps it holds in memory.
 */
export class GatedPool implements PgQueryable {
  constructor(
    private readonly pool: pg.Pool,
    private readonly before: () => Promise<void>,
  ) {}

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    await this.before();
    return this.pool.query<R>(config);
  }

  async connect(): Promise<pg.PoolClient> {
    await this.before();
    return this.pool.connect();
  }
}

/**
 * Runs `fn` in one transaction on one client of `pool`: committed when it resolves, rolled back when it
 * throws. The commit's durability is the pool's (see PgEngineDatabase).
 */
export async function inTransaction<T>(pool: PgQueryable, fn: (client: PgQueryable) => Promise<T>): Promise<T> {
  // A PgAppDatabase runs its own (joining the caller's transaction when there is one).
  const app = pool as PgQueryable & { transaction?: (fn: (client: PgQueryable) => Promise<T>) => Promise<T> };
  if (typeof app.transaction === "function") return app.transaction(fn);
  if (!(pool instanceof pg.Pool) && !(pool instanceof GatedPool)) return fn(pool); // already a transaction's client
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollback) {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    }
    throw error;
  } finally {
    // A client whose rollback failed is not handed out again.
    client.release(broken);
  }
}

/** JSON text for a column; `undefined` (which JSON cannot hold) is stored as null, as on SQLite. */
export const toJson = (value: unknown): string => JSON.stringify(value) ?? "null";

/**
 * `value` as the text of a jsonb parameter. jsonb refuses U+0000 (the `\u0000` escape), which values the
 * engine makes may hold although requests cannot (a prompt written `"\0"` in a spec's YAML, a model's tool
 * arguments): it is kept as the six characters `\u0000` instead, so the write is not refused.
 */
export const toJsonb = (value: unknown): string => toJson(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\\\u0000");

/** A millisecond timestamp as a TIMESTAMPTZ parameter (ISO text keeps the milliseconds exactly). */
export const toTimestamp = (ms: number): string => new Date(ms).toISOString();

/** A TIMESTAMPTZ column as read by `pg` (a Date), in milliseconds. */
export const fromTimestamp = (value: Date | null): number | null => (value === null ? null : value.getTime());

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH"]);

/**
 * True for a failure of the database itself rather than of the request: a lost or refused connection,
 * the server shutting down or out of resources (SQLSTATE classes 08, 53, 57P, 58). The run then ends as a
 * crash would, and recovery continues it from the last commit.
 */
export function isPgStorageError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (CONNECTION_CODES.has(code)) return true;
    if (/^(08|53|58)/.test(code) || code.startsWith("57P")) return true;
  }
  return /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(error.message);
}

/** The SQLSTATE of a unique violation. */
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: unknown })?.code === "23505";
