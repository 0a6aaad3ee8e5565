import { accessSync, chmodSync, constants, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";

/**
 * One server per data directory. Two servers on one SQLite file would both recover and run the same
 * instances (nodes run twice, instances failed although their result is there), so the second one
 * refuses to start. The lock is SQLite's own exclusive lock on `modex.lock`, an OS-level (fcntl) lock
 * held by the connection: it dies with its process, so a `kill -9` never leaves a stale lock. Who holds
 * it is written beside it (`modex.lock.json`) for the refusal's message.
 */
export class DataDirError extends Error {
  constructor(
    readonly code: "DATA_DIR_LOCKED" | "DATA_DIR_UNUSABLE",
    message: string,
  ) {
    super(message);
    this.name = "DataDirError";
  }
}

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

export interface DataDirLock {
  readonly dir: string;
  release(): void;
}

/**
 * Creates the data directory if needed and checks that this process can write there; throws a
 * DataDirError naming the variable, the path and the cause (permissions, a file in the way, a
 * read-only disk, a place no directory can be made such as /proc).
 */
export function prepareDataDir(dir: string): void {
  try {
    createDirectory(dir);
    if (!statSync(dir).isDirectory()) throw new DataDirError("DATA_DIR_UNUSABLE", unusable(dir, "it is a file, not a directory"));
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    // Writing a file is the one sure test (a read-only mount passes accessSync); the probe is then removed.
    // Named for this process: two servers starting at once on one directory (the second is then refused
    // by the lock) must not remove each other's probe, or the slower one fails with ENOENT instead.
    const probe = path.join(dir, `.modex-write-check-${process.pid}`);
    writeFileSync(probe, String(process.pid));
    rmSync(probe);
  } catch (error) {
    if (error instanceof DataDirError) throw error;
    throw new DataDirError("DATA_DIR_UNUSABLE", unusable(dir, (error as Error).message));
  }
}

const unusable = (dir: string, cause: string) => `cannot use the data directory ${dir} (MODEX_DATA_DIR): ${cause}`.replace(/\s+/g, " ");

/**
 * `mkdir -p` that fails instead of hanging: Node's `mkdirSync(dir, { recursive: true })` retries forever
 * where mkdir answers ENOENT although the parent exists (under /proc). The missing levels are made one
 * by one; the first refusal, or a stat error other than "no such entry", is thrown.
 */
function createDirectory(dir: string): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); path.dirname(d) !== d && !statSync(d, { throwIfNoEntry: false }); d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) mkdirSync(d);
}

/**
 * Takes the data directory's lock for this process, or throws DATA_DIR_LOCKED naming who holds it.
 * Two servers starting at the same moment can each hold SQLite's shared lock and so both fail to
 * upgrade it; an attempt that fails therefore closes its connection (dropping every lock it had) and
 * tries again after a random pause, for up to `waitMs`: one of them wins, the other sees it holding.
 */
export function lockDataDir(dir: string, waitMs = 3_000): DataDirLock {
  prepareDataDir(dir);
  const file = path.join(dir, "modex.lock");
  const infoFile = path.join(dir, "modex.lock.json");
  const deadline = Date.now() + waitMs;
  let db: Database | null = null;
  for (;;) {
    db = tryLock(file);
    if (db || Date.now() >= deadline) break;
    sleepSync(20 + Math.random() * 80);
  }
  if (!db) {
    throw new DataDirError("DATA_DIR_LOCKED", `another Modex server holds the data directory ${dir} (${describeHolder(infoFile)}); stop it, or give this one its own MODEX_DATA_DIR`);
  }
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  writeFileSync(infoFile, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  for (const f of [file, infoFile]) chmodSync(f, 0o600);
  const held = db;
  return {
    dir,
    release: () => {
      if (held.open) held.close();
    },
  };
}

/** One attempt: the lock held by the returned connection, or null when another process holds (or races for) it. */
function tryLock(file: string): Database | null {
  let db: Database | undefined;
  try {
    db = new BetterSqlite3(file, { timeout: 0 });
    db.pragma("locking_mode = EXCLUSIVE");
    // A write takes the EXCLUSIVE lock, and exclusive locking mode keeps it until the connection closes.
    db.exec(`BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY, pid INTEGER);
      INSERT OR REPLACE INTO lock VALUES (1, ${process.pid}); COMMIT;`);
    return db;
  } catch (error) {
    if (db?.open) db.close();
    const code = (error as { code?: string }).code ?? "";
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return null;
    throw new DataDirError("DATA_DIR_UNUSABLE", `cannot lock the data directory ${path.dirname(file)} (${file}): ${(error as Error).message}`);
  }
}

/** Start-up only: a synchronous pause between lock attempts. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function describeHolder(infoFile: string): string {
  try {
    const h = JSON.parse(readFileSync(infoFile, "utf8")) as LockHolder;
    return `process ${h.pid} on ${h.host}, started ${h.startedAt}`;
  } catch {
    return "a process that is still starting";
  }
}
