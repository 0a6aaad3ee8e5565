import type { ExtensionCountsDelta, ExtensionFailure } from "@/server/agent/extensions/extension-manager";
import type { ExtensionPoint } from "@/server/agent/extensions/extension-point";
import { commitWith } from "@/server/db/deferred-transaction";
import type { Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import type { Awaitable } from "@/server/graph/awaitable";

/** One extension's statistics summed over every process since the last reset. */
export interface StoredExtensionStatistics {
  calls: number;
  failures: number;
  vetoes: number;
  timeMs: number;
  counters: Record<string, number>;
  /** The latest failure any process added. */
  lastError?: ExtensionFailure;
}

export interface ExtensionStatisticsTotals {
  /** How many resets there have been: a process counting under an older one drops what it counted. */
  generation: number;
  byName: Map<string, StoredExtensionStatistics>;
}

/**
 * Extension statistics summed over every process that runs agents, kept across restarts. Each process
 * adds what it counted in batches (ExtensionStatisticsFlusher); a reset empties them for all. In-memory
 * and SQLite answer synchronously, PostgreSQL with promises.
 */
export interface ExtensionStatisticsStore {
  /**
   * Adds `batch`, counted while the store's generation was `generation`, and answers the generation now.
   * When a reset moved it on, nothing is added (the batch may hold counts from before the reset).
   * Committed when it has answered.
   */
  add(batch: readonly ExtensionCountsDelta[], generation: number): Awaitable<number>;
  totals(): Awaitable<ExtensionStatisticsTotals>;
  /** Empties every extension's statistics and moves the generation on; answers the new generation. */
  reset(): Awaitable<number>;
}

/** Adds one delta to a stored total (the in-memory store; the SQL stores say the same in SQL). */
export function addDelta(into: StoredExtensionStatistics, delta: ExtensionCountsDelta): void {
  into.calls += delta.calls;
  into.failures += delta.failures;
  into.vetoes += delta.vetoes;
  into.timeMs += delta.timeMs;
  for (const [key, value] of Object.entries(delta.counters)) into.counters[key] = (into.counters[key] ?? 0) + value;
  if (delta.lastError && (!into.lastError || delta.lastError.at >= into.lastError.at)) into.lastError = delta.lastError;
}

export const emptyStatistics = (): StoredExtensionStatistics => ({ calls: 0, failures: 0, vetoes: 0, timeMs: 0, counters: {} });

export class InMemoryExtensionStatisticsStore implements ExtensionStatisticsStore {
  private generation = 0;
  private byName = new Map<string, StoredExtensionStatistics>();

  add(batch: readonly ExtensionCountsDelta[], generation: number): number {
    if (generation !== this.generation) return this.generation;
    for (const delta of batch) {
      const stored = this.byName.get(delta.name) ?? emptyStatistics();
      addDelta(stored, delta);
      this.byName.set(delta.name, stored);
    }
    return this.generation;
  }

  totals(): ExtensionStatisticsTotals {
    return { generation: this.generation, byName: new Map([...this.byName].map(([k, v]) => [k, structuredClone(v)])) };
  }

  reset(): number {
    this.byName = new Map();
    return ++this.generation;
  }
}

/** A statistics row as both SQL stores read it (BIGINT may come back as a string from PostgreSQL). */
export interface StatisticsRow {
  name: string;
  calls: number | string;
  failures: number | string;
  vetoes: number | string;
  time_ms: number;
  last_error_point: string | null;
  last_error_message: string | null;
  last_error_at: number | string | null;
}

/** The stored totals from the statistics rows and the counter rows. */
export function totalsFromRows(generation: number, rows: StatisticsRow[], counters: { name: string; counter: string; value: number }[]): ExtensionStatisticsTotals {
  const byName = new Map<string, StoredExtensionStatistics>();
  for (const r of rows) {
    const stats: StoredExtensionStatistics = { calls: Number(r.calls), failures: Number(r.failures), vetoes: Number(r.vetoes), timeMs: r.time_ms, counters: {} };
    if (r.last_error_at !== null) stats.lastError = { point: r.last_error_point as ExtensionPoint, message: r.last_error_message ?? "", at: Number(r.last_error_at) };
    byName.set(r.name, stats);
  }
  for (const c of counters) {
    const stats = byName.get(c.name) ?? emptyStatistics();
    stats.counters[c.counter] = c.value;
    byName.set(c.name, stats);
  }
  return { generation, byName };
}

/** The values of one statistics upsert, in its placeholders' order: name, counts, latest failure, now. */
export const statisticsValues = (d: ExtensionCountsDelta, now: number) => [
  d.name,
  d.calls,
  d.failures,
  d.vetoes,
  d.timeMs,
  d.lastError?.point ?? null,
  d.lastError?.message ?? null,
  d.lastError?.at ?? null,
  now,
];

/** Whether the added row's failure is the newer: only then does it replace the stored one. */
const NEWER = (t: string) => `excluded.last_error_at IS NOT NULL AND (${t}.last_error_at IS NULL OR excluded.last_error_at >= ${t}.last_error_at)`;

/** The upsert both SQL dialects share (written with PostgreSQL's `$n`; SQLite's copy binds `?`). */
export const UPSERT_STATISTICS = `INSERT INTO extension_statistics AS s (name, calls, failures, vetoes, time_ms, last_error_point, last_error_message, last_error_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (name) DO UPDATE SET calls = s.calls + excluded.calls, failures = s.failures + excluded.failures,
    vetoes = s.vetoes + excluded.vetoes, time_ms = s.time_ms + excluded.time_ms,
    last_error_point = CASE WHEN ${NEWER("s")} THEN excluded.last_error_point ELSE s.last_error_point END,
    last_error_message = CASE WHEN ${NEWER("s")} THEN excluded.last_error_message ELSE s.last_error_message END,
    last_error_at = CASE WHEN ${NEWER("s")} THEN excluded.last_error_at ELSE s.last_error_at END,
    updated_at = excluded.updated_at`;

export const UPSERT_COUNTER = `INSERT INTO extension_counters AS c (name, counter, value) VALUES ($1, $2, $3)
  ON CONFLICT (name, counter) DO UPDATE SET value = c.value + excluded.value`;

/** SQLite binds in order: each `$n` of the shared SQL appears once, in order. */
const sqlite = (sql: string) => sql.replace(/\$\d+/g, "?");

const SQL = {
  generation: "SELECT generation FROM extension_statistics_generation WHERE id = 1",
  statistics: "SELECT name, calls, failures, vetoes, time_ms, last_error_point, last_error_message, last_error_at FROM extension_statistics",
  counters: "SELECT name, counter, value FROM extension_counters",
  upsertStatistics: sqlite(UPSERT_STATISTICS),
  upsertCounter: sqlite(UPSERT_COUNTER),
  nextGeneration: "UPDATE extension_statistics_generation SET generation = generation + 1 WHERE id = 1",
  clearStatistics: "DELETE FROM extension_statistics",
  clearCounters: "DELETE FROM extension_counters",
} as const;

/** On the `extension_statistics` tables; a batch is one commit (joining the engine's deferred one when open). */
export class SqliteExtensionStatisticsStore implements ExtensionStatisticsStore {
  constructor(private readonly db: Database) {}

  add(batch: readonly ExtensionCountsDelta[], generation: number): number {
    if (batch.length === 0) return this.generation();
    return commitWith(this.db, () => {
      const now = this.generation();
      if (now !== generation) return now;
      const at = Date.now();
      for (const delta of batch) {
        statement(this.db, SQL.upsertStatistics).run(...statisticsValues(delta, at));
        for (const [counter, value] of Object.entries(delta.counters)) statement(this.db, SQL.upsertCounter).run(delta.name, counter, value);
      }
      return now;
    });
  }

  totals(): ExtensionStatisticsTotals {
    const rows = statement(this.db, SQL.statistics).all() as StatisticsRow[];
    const counters = statement(this.db, SQL.counters).all() as { name: string; counter: string; value: number }[];
    return totalsFromRows(this.generation(), rows, counters);
  }

  reset(): number {
    return commitWith(this.db, () => {
      statement(this.db, SQL.nextGeneration).run();
      statement(this.db, SQL.clearStatistics).run();
      statement(this.db, SQL.clearCounters).run();
      return this.generation();
    });
  }

  private generation(): number {
    return Number((statement(this.db, SQL.generation).get() as { generation: number | bigint }).generation);
  }
}
