import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { inTransaction, type PgQueryable } from "./pg-database";

export interface PgAppDatabaseOptions {
  url: string;
  /** Connections in the pool. Default 8. */
  maxConnections?: number;
  /** Names this process in pg_stat_activity. */
  applicationName?: string;
}

/**
 * The app's connection to PostgreSQL (a web process's stores: specs, chats, settings, control writes).
 * Every store queries through it; inside `transaction(fn)` every query of every store, however deep in
 * the call, runs on that transaction's client (AsyncLocalStorage), so a state change, the Idempotency-Key
 * that claims it and the job that makes it due commit together without the stores knowing of each other.
 * Writes are synchronous commits: a promise that resolved is a committed write.
 */
export class PgAppDatabase implements PgQueryable {
  private readonly current = new AsyncLocalStorage<PgQueryable>();

  private constructor(readonly pool: pg.Pool) {}

  static open(options: PgAppDatabaseOptions): PgAppDatabase {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 8,
      application_name: options.applicationName ?? "modex-web",
    });
    pool.on("error", (error) => console.warn(`[modex] PostgreSQL connection lost: ${error.message}`));
    return new PgAppDatabase(pool);
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return (this.current.getStore() ?? this.pool).query<R>(config);
  }

  /** Whether the caller runs inside `transaction` (its queries join it). */
  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /** Runs `fn` in one transaction, or in the caller's when there is one (nested calls join the outer one). */
  transaction<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T> {
    const open = this.current.getStore();
    if (open) return fn(open);
    return inTransaction(this.pool, (tx) => this.current.run(tx, () => fn(tx)));
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
