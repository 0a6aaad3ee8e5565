import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPgEngineDatabase, type PgEngineDatabase, type PgEngineDatabaseOptions } from "../pg-database";
import { migratePostgres } from "../pg-migrate";

/**
 * The PostgreSQL server tests create their databases on, through its `postgres` database. CI starts the
 * local server (.ci/run); MODEX_TEST_PG_URL points elsewhere.
 */
export const PG_SERVER_URL = process.env.MODEX_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** The engine's tables, emptied between conformance tests. */
const ENGINE_TABLES = ["graph_instances", "graph_io_records", "node_invocations", "deliver_rows", "engine_events"];

/** `url` with its database replaced by `database`. */
export function urlOfDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onServer<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_SERVER_URL, application_name: "modex-test-setup" });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_SERVER_URL} (set MODEX_TEST_PG_URL, or start it: ` +
        `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start): ${(error as Error).message}`,
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated database `modex_test_<random>` on the test server, dropped on dispose
 * (`await using db = await PgTestDatabase.create()`, or create in beforeAll and dispose in afterAll).
 * `open()` hands out engine connections that dispose closes first.
 */
export class PgTestDatabase implements AsyncDisposable {
  private readonly opened = new Set<PgEngineDatabase>();
  private admin: pg.Client | undefined;

  private constructor(
    readonly name: string,
    readonly url: string,
  ) {}

  static async create(options: { migrate?: boolean } = {}): Promise<PgTestDatabase> {
    const name = `modex_test_${randomBytes(6).toString("hex")}`;
    await onServer((c) => c.query(`CREATE DATABASE ${name}`));
    const db = new PgTestDatabase(name, urlOfDatabase(PG_SERVER_URL, name));
    if (options.migrate !== false) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await migratePostgres(client);
      } finally {
        await client.end();
      }
    }
    return db;
  }

  /** New pools on this database: what another process would have. */
  open(options: Omit<PgEngineDatabaseOptions, "url"> = {}): PgEngineDatabase {
    const db = openPgEngineDatabase({ url: this.url, applicationName: "modex-test", ...options });
    const close = db.close;
    const tracked: PgEngineDatabase = {
      acks: db.acks,
      steps: db.steps,
      close: async () => {
        if (!this.opened.delete(tracked)) return;
        await close();
      },
    };
    this.opened.add(tracked);
    return tracked;
  }

  /** Runs `fn` on a connection of its own to this database, closed after. */
  async withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.url, application_name: "modex-test-setup" });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  /**
   * The deadlocks PostgreSQL counted in this database, read once every other session of it has ended
   * (a session's counts are flushed as it ends; waits up to 10 s for that).
   */
  async deadlocksOnceAlone(): Promise<number> {
    return this.withClient(async (client) => {
      const others = async () =>
        Number((await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows[0].n);
      for (const deadline = Date.now() + 10_000; (await others()) > 0; ) {
        if (Date.now() > deadline) throw new Error("other sessions of the database did not end within 10 s");
        await new Promise((r) => setTimeout(r, 50));
      }
      await client.query("SELECT pg_stat_clear_snapshot()");
      return Number((await client.query("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")).rows[0].deadlocks);
    });
  }

  /** Empties the engine's tables (between tests that count rows), on one connection kept for it. */
  async truncate(): Promise<void> {
    if (!this.admin) {
      this.admin = new pg.Client({ connectionString: this.url, application_name: "modex-test-setup" });
      await this.admin.connect();
    }
    await this.admin.query(`TRUNCATE ${ENGINE_TABLES.join(", ")}`);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.admin?.end();
    await Promise.all([...this.opened].map((db) => db.close()));
    await onServer(async (c) => {
      // Closed connections' server processes may take a moment to exit; a killed child's may linger.
      for (let attempt = 0; attempt < 40; attempt++) {
        try {
          await c.query(`DROP DATABASE IF EXISTS ${this.name}`);
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== "55006") throw error; // in use by other sessions
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      await c.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    });
  }
}
