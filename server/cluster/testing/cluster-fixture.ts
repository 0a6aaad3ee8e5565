import pg from "pg";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { ClusterControl } from "../cluster-control";
import { Dispatch } from "../dispatch";

/**
 * A fresh migrated database with pg-boss installed, an unfenced pool (what a web process has) and a
 * ClusterControl on it. Dispose closes everything and drops the database.
 */
export class ClusterFixture implements AsyncDisposable {
  private constructor(
    readonly database: PgTestDatabase,
    readonly pool: pg.Pool,
    readonly dispatch: Dispatch,
    readonly control: ClusterControl,
  ) {}

  static async create(options: { graceMs?: number } = {}): Promise<ClusterFixture> {
    const database = await PgTestDatabase.create();
    const pool = new pg.Pool({ connectionString: database.url, max: 4, application_name: "modex-test-web" });
    pool.on("error", () => undefined);
    const dispatch = await Dispatch.start({ url: database.url, supervise: false });
    const control = new ClusterControl({ db: pool, dispatch, graceMs: options.graceMs });
    return new ClusterFixture(database, pool, dispatch, control);
  }

  get url(): string {
    return this.database.url;
  }

  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R>(text, values)).rows;
  }

  /** Waits until `check` holds (polling), or fails after `timeoutMs`. */
  async until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async countStatus(status: string): Promise<number> {
    const rows = await this.query<{ n: number }>("SELECT count(*)::int AS n FROM graph_instances WHERE is_latest AND status = $1", [status]);
    return rows[0].n;
  }

  /**
   * True when no lease is held or due (every lease released) and no job waits. Jobs a killed worker had
   * fetched stay 'active' in pg-boss until they expire; the leases cover their work.
   */
  async idle(): Promise<boolean> {
    const busy = await this.query("SELECT 1 FROM cluster_leases WHERE owner IS NOT NULL OR expires_at <> 'infinity' LIMIT 1");
    if (busy.length > 0) return false;
    const jobs = await this.query("SELECT 1 FROM pgboss.job WHERE state IN ('created', 'retry') LIMIT 1");
    return jobs.length === 0;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispatch.stop().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    await this.database[Symbol.asyncDispose]();
  }
}
