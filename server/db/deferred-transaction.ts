import type { Database } from "better-sqlite3";
import { forgetAllRunMemory } from "./instance-memory";
import { statement } from "./sqlite-statements";
import { isStorageError } from "./storage-errors";

/**
 * Group commit for the engine's hot path. A node's last step (promote its consumed inputs) and the next
 * node's first step (begin + claim) need not each pay a commit: they are written into a transaction left
 * open ("deferred") and committed with the next completion, which must be durable before its successors
 * start. Whatever else writes on this connection commits the deferred steps first (`commitDeferred`), and
 * so does the event loop: a microtask after a begin (a node that awaits I/O shows RUNNING at once, and the
 * write lock is released while it waits), a macrotask at the latest.
 *
 * Readers on other connections only ever see commit points, each a state the step-by-step coordinator
 * also passes through. Writers on another connection of the same process (a Prisma client) must not
 * write while a step is deferred — they would wait for a lock only this thread can release — so writes
 * that interleave with a run (the event log) go through this connection.
 */
interface Deferred {
  open: boolean;
  /** Which deferred transaction is (or was last) open: 1, 2, ... (see `commitMark`). */
  tx: number;
  /** Deferred transactions rolled back instead of committed, with the cause: the newest 256. */
  readonly lost: Map<number, unknown>;
  /** Commits so far: a microtask flush queued before the latest commit has nothing of its own left. */
  commits: number;
  microtaskQueued: boolean;
  microtaskFor: number;
  /** Run once the deferred steps commit; dropped if they roll back. */
  afterCommit: (() => void)[];
  /** Promises of `whenCommitted`: resolved at the commit, rejected when the steps are lost. */
  waiters: CommitWaiter[];
  macrotaskQueued: boolean;
  /** Steps kept in memory until something needs them in the table (see `PendingWrites`). */
  /** One per coordinator on the connection that holds steps (usually one). */
  pending: Set<PendingWrites>;
  readonly flushFromMicrotask: () => void;
  readonly flushFromMacrotask: () => void;
}

const deferredByDb = new WeakMap<Database, Deferred>();

function deferredOf(db: Database): Deferred {
  let d = deferredByDb.get(db);
  if (!d) {
    const state: Deferred = {
      open: false,
      tx: 0,
      lost: new Map(),
      commits: 0,
      microtaskQueued: false,
      microtaskFor: 0,
      afterCommit: [],
      waiters: [],
      macrotaskQueued: false,
      pending: new Set(),
      flushFromMicrotask: () => {
        state.microtaskQueued = false;
        // The begin it was queued for was committed meanwhile (a synchronous node completed): what is
        // deferred now is a later promotion, which waits for the next completion.
        if (state.microtaskFor === state.commits) commitFromEventLoop(db);
      },
      flushFromMacrotask: () => {
        state.macrotaskQueued = false;
        commitFromEventLoop(db);
      },
    };
    deferredByDb.set(db, (d = state));
  }
  return d;
}

/**
 * Opens the deferred transaction if none is open. Returns false when the caller's own transaction is
 * open instead: its steps then simply join it. `soon` asks for a commit at the next microtask.
 */
export function beginDeferred(db: Database, soon: boolean): boolean {
  const d = deferredOf(db);
  // SQLite rolls a whole transaction back on its own after some errors (SQLITE_FULL, I/O): the steps
  // deferred so far are lost, and a statement run now would commit alone. Lost it is, then.
  if (d.open && !db.inTransaction) abortDeferred(db, new Error(`SQLite rolled back the uncommitted writes to ${db.name}`));
  if (!d.open) {
    if (db.inTransaction) return false;
    statement(db, "BEGIN IMMEDIATE").run();
    d.open = true;
    d.tx++;
  }
  if (soon) {
    d.microtaskFor = d.commits;
    if (!d.microtaskQueued) {
      d.microtaskQueued = true;
      queueMicrotask(d.flushFromMicrotask);
    }
  }
  if (!d.macrotaskQueued) {
    d.macrotaskQueued = true;
    setImmediate(d.flushFromMacrotask);
  }
  return true;
}

/**
 * Drops the pending microtask commit, which begins ask for so that a node awaiting I/O shows RUNNING:
 * for when the node ended in the same stretch, cancelled or failed, and no other begin of the stretch
 * still runs. The instance's status change that follows (a pause, a stop, a failure) then commits the
 * deferred steps with it, at the latest the next macrotask.
 */
export function commitWithNextStatus(db: Database): void {
  const d = deferredByDb.get(db);
  if (d?.open) d.microtaskFor = -1;
}

/** How many times the deferred transaction ended (committed or rolled back) on this connection. */
export function deferredEpoch(db: Database): number {
  return deferredByDb.get(db)?.commits ?? 0;
}

/**
 * Deferred steps a coordinator holds in memory instead of writing at once, because a later step of the
 * same transaction usually supersedes them (a begin's RUNNING row and claims, merged into its
 * completion). They are written before the deferred transaction commits and before any other write on
 * the connection, so no commit point and no other writer can tell; a rollback drops them.
 */
export interface PendingWrites {
  flush(): void;
  discard(): void;
}

/** Registers `pending`, whose steps belong to the open deferred transaction. */
export function holdPendingWrites(db: Database, pending: PendingWrites): void {
  deferredOf(db).pending.add(pending);
}

/** Writes the held steps now: before a read that must see them, or a write that commits. */
export function flushPendingWrites(db: Database): void {
  const d = deferredByDb.get(db);
  if (!d || d.pending.size === 0) return;
  const holders = [...d.pending];
  d.pending.clear();
  for (const holder of holders) holder.flush();
}

/**
 * Commits the deferred steps, if any. A commit that fails (disk full, I/O error) rolls the steps back,
 * rejects everyone waiting for them and tells the storage-failure listeners, then throws.
 */
export function commitDeferred(db: Database): void {
  const d = deferredByDb.get(db);
  if (!d?.open) return;
  // Closed without `closeGraphDatabase` (a crash, as tests simulate it): SQLite rolled the steps back.
  if (!db.open) return abortDeferred(db);
  try {
    if (d.pending.size > 0) flushPendingWrites(db);
    // SQLite may roll a whole transaction back on its own after SQLITE_FULL or an I/O error.
    if (!db.inTransaction) throw new Error(`SQLite rolled back the uncommitted writes to ${db.name}`);
    statement(db, "COMMIT").run();
  } catch (error) {
    abortDeferred(db, error);
    throw error;
  }
  d.open = false;
  d.commits++;
  const waiters = d.waiters;
  if (waiters.length > 0) {
    d.waiters = [];
    for (const w of waiters) w.resolve();
  }
  if (d.afterCommit.length === 0) return;
  const callbacks = d.afterCommit;
  d.afterCommit = [];
  for (const fn of callbacks) fn();
}

/** The event loop's commit: a failure was already reported to the waiters and listeners; no throw. */
function commitFromEventLoop(db: Database): void {
  try {
    commitDeferred(db);
  } catch (error) {
    console.error(`[modex] commit to ${db.name} failed: ${(error as Error).message}`);
  }
}

interface CommitWaiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Where the connection's writes stand: the open deferred transaction that holds what was just written,
 * or 0 when nothing is deferred (what was written is committed already, or was refused with an error).
 */
export function commitMark(db: Database): number {
  const d = deferredByDb.get(db);
  return d?.open ? d.tx : 0;
}

/**
 * Resolves once the writes made before `mark` (default: now) are committed: at once when nothing was
 * deferred, else at the group commit that holds them (the next completion, microtask or macrotask, so
 * no commit is added for it). Rejects with the cause when that transaction was lost instead (a failed
 * commit, a rollback), even if it was lost before the call. What an API answers after this is durable:
 * "acknowledged" means "committed".
 */
export function whenCommitted(db: Database, mark: number = commitMark(db)): Promise<void> {
  const d = deferredByDb.get(db);
  if (!d || mark === 0) return Promise.resolve();
  if (d.open && d.tx === mark) return new Promise<void>((resolve, reject) => d.waiters.push({ resolve, reject }));
  return d.lost.has(mark) ? Promise.reject(d.lost.get(mark)) : Promise.resolve();
}

/**
 * After a storage error: SQLite may have rolled the whole deferred transaction back on its own. Its
 * steps are then lost (and later statements would autocommit one by one), so it is aborted here and the
 * storage-failure listeners hear of it. Otherwise only the failed statement was undone.
 */
export function checkDeferredAfterError(db: Database, error: unknown): void {
  const d = deferredByDb.get(db);
  if (d?.open && db.open && !db.inTransaction) abortDeferred(db, error);
}

/** Storage failures of a connection: a write or commit that failed, losing what was deferred with it. */
export type StorageFailureListener = (error: unknown) => void;
const failureListeners = new WeakMap<Database, Set<StorageFailureListener>>();

/** Tells `listener` of every storage failure on `db` (see `reportStorageFailure`); returns the unsubscribe. */
export function onStorageFailure(db: Database, listener: StorageFailureListener): () => void {
  let set = failureListeners.get(db);
  if (!set) failureListeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

function reportStorageFailure(db: Database, error: unknown): void {
  const set = failureListeners.get(db);
  if (!set) return;
  for (const listener of [...set]) {
    try {
      listener(error);
    } catch (e) {
      console.error("[modex] storage-failure listener failed:", e);
    }
  }
}

/**
 * Runs `fn` once what this connection has written so far is committed: now when nothing is deferred,
 * else right after the deferred steps commit (never, if they roll back). For announcing a write only
 * once it is durable — an event appended to the log inside a node's deferred begin, say, is published
 * when that node's completion commits.
 */
export function onCommitted(db: Database, fn: () => void): void {
  const d = deferredByDb.get(db);
  if (d?.open) d.afterCommit.push(fn);
  else fn();
}

/**
 * Rolls the deferred steps back (a step failed half-way, or their commit did): the state returns to the
 * last commit. Whoever waits for those steps is rejected with `cause`, and the storage-failure listeners
 * hear of it: runs whose steps were lost must not go on as if they were written.
 */
export function abortDeferred(db: Database, cause: unknown = new Error(`the uncommitted writes to ${db.name} were rolled back`)): void {
  const d = deferredByDb.get(db);
  if (!d?.open) return;
  d.open = false;
  d.commits++;
  d.lost.set(d.tx, cause);
  if (d.lost.size > 256) d.lost.delete(d.lost.keys().next().value!);
  d.afterCommit = [];
  for (const holder of d.pending) holder.discard();
  d.pending.clear();
  forgetAllRunMemory(db);
  try {
    if (db.open && db.inTransaction) statement(db, "ROLLBACK").run();
  } finally {
    const waiters = d.waiters;
    d.waiters = [];
    for (const w of waiters) w.reject(cause);
    reportStorageFailure(db, cause);
  }
}

export interface CommitWithOptions {
  /** The write is one statement (reads aside), atomic by itself: no savepoint around it. */
  oneWrite?: boolean;
}

/**
 * Runs a write that must be durable when it returns (a status change someone may announce): inside the
 * deferred transaction if one is open, then commits both at once — one commit, not two. A failing
 * write rolls back alone (a savepoint, or the statement itself); the deferred steps before it still
 * commit.
 */
export function commitWith<T>(db: Database, write: () => T, options: CommitWithOptions = {}): T {
  // Cached statements, not `db.transaction(write)`: that builds four wrapper functions per call, and
  // this runs for every status change.
  flushPendingWrites(db);
  if (!db.inTransaction) {
    statement(db, "BEGIN IMMEDIATE").run();
    try {
      const result = write();
      statement(db, "COMMIT").run();
      return result;
    } catch (error) {
      forgetAllRunMemory(db);
      if (db.inTransaction) statement(db, "ROLLBACK").run();
      if (isStorageError(error)) reportStorageFailure(db, error);
      throw error;
    }
  }
  try {
    return options.oneWrite ? write() : inSavepoint(db, write);
  } catch (error) {
    if (isStorageError(error)) reportStorageFailure(db, error);
    throw error;
  } finally {
    commitDeferred(db);
  }
}

/**
 * Runs `write` in a savepoint of the open transaction: a failure rolls back `write` alone (and drops
 * what the connection keeps in memory about its instances), the steps before it stay.
 */
function inSavepoint<T>(db: Database, write: () => T): T {
  statement(db, "SAVEPOINT step").run();
  try {
    const result = write();
    statement(db, "RELEASE step").run();
    return result;
  } catch (error) {
    forgetAllRunMemory(db);
    try {
      if (db.inTransaction) {
        statement(db, "ROLLBACK TO step").run();
        statement(db, "RELEASE step").run();
      }
    } catch {
      // The savepoint went with the whole transaction (SQLite rolled it back, or a failed outermost
      // RELEASE): what was deferred with it is lost too.
      if (db.inTransaction) statement(db, "ROLLBACK").run();
    }
    checkDeferredAfterError(db, error);
    throw error;
  }
}

/**
 * Runs a write that commits with the run it starts — its first node's commit, at the latest the next
 * macrotask: for a write nobody has been told of yet (a new instance, a resumed one), since a crash
 * before that commit loses only what the caller had no chance to announce. A failing write rolls back
 * alone (a savepoint, or the statement itself when it is one); the deferred steps before it stay.
 */
export function commitWithRun<T>(db: Database, write: () => T, options: CommitWithOptions = {}): T {
  return beginDeferred(db, false) && !options.oneWrite ? inSavepoint(db, write) : write();
}

/**
 * Runs a write that a later committing write always follows (a state checkpoint before the status
 * change that ends a run): it joins the deferred transaction instead of paying its own commit.
 */
export function deferWith<T>(db: Database, write: () => T): T {
  beginDeferred(db, false);
  return write();
}
