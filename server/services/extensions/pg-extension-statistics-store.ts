import type { ExtensionCountsDelta } from "@/server/agent/extensions/extension-manager";
import { inTransaction, type PgQueryable } from "@/server/db/pg/pg-database";
import {
  statisticsValues,
  totalsFromRows,
  UPSERT_COUNTER,
  UPSERT_STATISTICS,
  type ExtensionStatisticsStore,
  type ExtensionStatisticsTotals,
  type StatisticsRow,
} from "./extension-statistics-store";

const SQL = {
  generation: "SELECT generation FROM extension_statistics_generation WHERE id = 1",
  // A batch holds the generation row shared, a reset exclusively: a batch is added wholly before a
  // reset (which then empties it) or finds the generation moved on and is dropped.
  generationShared: "SELECT generation FROM extension_statistics_generation WHERE id = 1 FOR SHARE",
  statistics: "SELECT name, calls, failures, vetoes, time_ms, last_error_point, last_error_message, last_error_at FROM extension_statistics",
  counters: "SELECT name, counter, value FROM extension_counters",
  upsertStatistics: UPSERT_STATISTICS,
  upsertCounter: UPSERT_COUNTER,
  nextGeneration: "UPDATE extension_statistics_generation SET generation = generation + 1 WHERE id = 1 RETURNING generation",
  clearStatistics: "DELETE FROM extension_statistics",
  clearCounters: "DELETE FROM extension_counters",
} as const;

const q = (name: keyof typeof SQL, values: unknown[] = []) => ({ name: `modex_extension_statistics_${name}`, text: SQL[name], values });

/** On PostgreSQL's `extension_statistics` tables, shared by every process of the cluster. */
export class PgExtensionStatisticsStore implements ExtensionStatisticsStore {
  constructor(private readonly db: PgQueryable) {}

  async add(batch: readonly ExtensionCountsDelta[], generation: number): Promise<number> {
    if (batch.length === 0) return this.generation(this.db);
    // In name order, as every process adds: two batches' row locks are taken in one order, no deadlock.
    const sorted = [...batch].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return inTransaction(this.db, async (tx) => {
      const now = Number((await tx.query<{ generation: string }>(q("generationShared"))).rows[0].generation);
      if (now !== generation) return now;
      const at = Date.now();
      for (const delta of sorted) {
        await tx.query(q("upsertStatistics", statisticsValues(delta, at)));
        for (const counter of Object.keys(delta.counters).sort()) await tx.query(q("upsertCounter", [delta.name, counter, delta.counters[counter]]));
      }
      return now;
    });
  }

  async totals(): Promise<ExtensionStatisticsTotals> {
    // One snapshot, so a reset or a batch between the reads cannot mix two states.
    return inTransaction(this.db, async (tx) => {
      await tx.query({ text: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY" });
      const generation = await this.generation(tx);
      const rows = (await tx.query<StatisticsRow>(q("statistics"))).rows;
      const counters = (await tx.query<{ name: string; counter: string; value: number }>(q("counters"))).rows;
      return totalsFromRows(generation, rows, counters);
    });
  }

  async reset(): Promise<number> {
    return inTransaction(this.db, async (tx) => {
      const generation = Number((await tx.query<{ generation: string }>(q("nextGeneration"))).rows[0].generation);
      await tx.query(q("clearStatistics"));
      await tx.query(q("clearCounters"));
      return generation;
    });
  }

  private async generation(db: PgQueryable): Promise<number> {
    return Number((await db.query<{ generation: string }>(q("generation"))).rows[0].generation);
  }
}
