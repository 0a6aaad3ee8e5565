import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { commitDeferred } from "./deferred-transaction";
import { migrate, readMigrations } from "./migrate";

export type { Database } from "better-sqlite3";

export interface OpenGraphDatabaseOptions {
  /** Where the migrations live; defaults to `prisma/migrations` under the working directory. */
  migrationsDir?: string;
  /** How long a writer waits for another process's lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL from a worker thread with its own connection, instead of inside the commit that
   * crosses the auto-checkpoint threshold. A checkpoint copies pages and syncs the file; done inline it
   * turns one commit in a few hundred into a multi-millisecond stall of the engine's thread. Off by
   * default (tests open many short-lived databases); the app, benchmarks and long runs turn it on.
   */
  backgroundCheckpoint?: boolean;
  /**
   * A size quota (MiB, SQLite's `max_page_count`): a write that would grow the file past it fails with
   * SQLITE_FULL, exactly as on a full disk, and rolls back; reads keep working. Unset: no quota.
   */
  maxSizeMb?: number;
}

const checkpointers = new WeakMap<Database, Worker>();

// A CommonJS worker (eval): PASSIVE checkpoints never take the write lock, so the engine's thread never
// waits for them; the WAL restarts from its beginning whenever a checkpoint has caught up.
const CHECKPOINT_WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 1000");
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
}, workerData.intervalMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

/**
 * better-sqlite3's entry file, for the worker to load. Inside Next.js's server bundle `require.resolve`
 * answers a module id, not a path: the worker then resolves the package from the working directory,
 * which is the app's root there.
 */
function driverPath(): string {
  const resolved: unknown = createRequire(import.meta.url).resolve("better-sqlite3");
  return typeof resolved === "string" ? resolved : "better-sqlite3";
}

function startCheckpointer(db: Database, file: string): void {
  const driver = driverPath();
  const worker = new Worker(CHECKPOINT_WORKER, { eval: true, workerData: { file, driver, intervalMs: 50 } });
  worker.unref();
  worker.on("error", (error) => {
    // Commits checkpoint the WAL again, as on a connection without a checkpointer.
    console.warn(`modex: background WAL checkpoints stopped: ${error.message}`);
    checkpointers.delete(db);
    if (db.open) db.pragma("wal_autocheckpoint = 1000");
  });
  checkpointers.set(db, worker);
  // Backstop only: the worker keeps the WAL far below this.
  db.pragma("wal_autocheckpoint = 10000");
}

/** Commits deferred steps, stops the background checkpointer, and closes the connection. */
export function closeGraphDatabase(db: Database): void {
  commitDeferred(db);
  const worker = checkpointers.get(db);
  if (worker) {
    worker.postMessage("close");
    checkpointers.delete(db);
  }
  if (db.open) db.close();
}

/**
 * Opens (creating if needed) the SQLite file the engine's durable stores write, migrated to the latest
 * schema. WAL with synchronous=NORMAL: a commit survives a process crash (SIGKILL), and only an OS crash
 * or power loss may drop the last commits — never corrupt the file.
 */
export function openGraphDatabase(file: string, options: OpenGraphDatabaseOptions = {}): Database {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  migrate(db, readMigrations(options.migrationsDir));
  if (options.maxSizeMb !== undefined) setMaxSize(db, options.maxSizeMb);
  if (options.backgroundCheckpoint && file !== ":memory:") startCheckpointer(db, file);
  return db;
}

/** Sets the connection's size quota in MiB (never below what the file already holds). */
export function setMaxSize(db: Database, maxSizeMb: number): void {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.pragma(`max_page_count = ${Math.max(1, Math.floor((maxSizeMb * 1024 * 1024) / pageSize))}`);
}
