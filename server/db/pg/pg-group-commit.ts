import { inTransaction, isPgStorageError, type PgQueryable } from "./pg-database";

/** One statement of a unit: runs on the transaction's client (or the pool) and answers a value. */
export type PgStatement = (db: PgQueryable) => Promise<unknown>;

/** Statements committed together, or not at all. */
export interface PgWriteUnit {
  statements: PgStatement[];
  /**
   * Keys whose writers must commit one at a time across processes: the batch holding the unit takes a
   * transaction-scoped advisory lock on each (in one order, so batches never deadlock) before it runs.
   */
  locks: string[];
}

interface Queued {
  unit: PgWriteUnit;
  resolve: (values: unknown[]) => void;
  reject: (error: unknown) => void;
}

// Locks in the order of their keys: the subquery (ORDER BY, OFFSET 0 keeps it a fence) sorts them first.
const LOCK_SQL = `SELECT count(pg_advisory_xact_lock(k)) FROM
  (SELECT DISTINCT hashtextextended(key, 0) AS k FROM unnest($1::text[]) AS key ORDER BY k OFFSET 0) AS keys`;

/**
 * Group commit for a store's writes on PostgreSQL, in the order they were submitted. Units submitted in
 * one synchronous stretch, or while a batch is in flight, go as the next batch: one transaction (one
 * statement alone runs as it is). So a stream of small writes (a chat turn's events) costs a commit per
 * batch, not per write, and a unit's promise resolves once it is committed. A batch that fails for
 * another reason than the database itself (a constraint, a bad value) is retried unit by unit, so one
 * bad write does not take the others with it.
 */
export class PgGroupCommit {
  private next: Queued[] = [];
  private draining: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly db: PgQueryable) {}

  /** Queues `unit`; resolves with its statements' values once it is committed. */
  submit(unit: PgWriteUnit): Promise<unknown[]> {
    const done = new Promise<unknown[]>((resolve, reject) => this.next.push({ unit, resolve, reject }));
    this.inFlight.add(done);
    const forget = () => void this.inFlight.delete(done);
    done.then(forget, forget);
    if (!this.draining) this.draining = this.drain();
    return done;
  }

  /** Resolves once every unit submitted so far is settled (committed or failed): reads come after it. */
  settled(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  /** Resolves once every unit submitted so far is committed; rejects when one failed. */
  committed(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return Promise.all([...this.inFlight]).then(() => undefined);
  }

  private async drain(): Promise<void> {
    // A microtask first: units submitted in the same synchronous stretch share the first batch.
    await Promise.resolve();
    try {
      while (this.next.length > 0) {
        const batch = this.next;
        this.next = [];
        await this.flush(batch);
      }
    } finally {
      this.draining = null;
    }
  }

  private async flush(batch: Queued[]): Promise<void> {
    try {
      const values = await this.run(batch.map((q) => q.unit));
      batch.forEach((q, i) => q.resolve(values[i]));
    } catch (error) {
      if (batch.length === 1 || isPgStorageError(error)) return batch.forEach((q) => q.reject(error));
      for (const q of batch) await this.flush([q]);
    }
  }

  /** One transaction for the batch (a lone statement without locks runs as it is). */
  private async run(units: PgWriteUnit[]): Promise<unknown[][]> {
    const statements = units.flatMap((u) => u.statements);
    const locks = units.flatMap((u) => u.locks);
    if (statements.length === 0) return units.map(() => []);
    if (statements.length === 1 && locks.length === 0) return [[await statements[0](this.db)]];
    return inTransaction(this.db, async (client) => {
      if (locks.length > 0) await client.query({ text: LOCK_SQL, values: [locks] });
      const values: unknown[][] = [];
      for (const unit of units) {
        const own: unknown[] = [];
        for (const statement of unit.statements) own.push(await statement(client));
        values.push(own);
      }
      return values;
    });
  }
}
