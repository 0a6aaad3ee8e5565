import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import type { Awaitable } from "@/server/graph/awaitable";
import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";

export interface InstanceCounts {
  running: number;
  total: number;
}

/** Instances per graph name (latest versions): the spec list shows them. */
export type InstanceCounter = () => Awaitable<ReadonlyMap<string, InstanceCounts>>;

const COUNT_SQL = `SELECT graph_name AS name, COUNT(*) AS total, SUM(status = 'running') AS running
  FROM graph_instances WHERE is_latest = 1 GROUP BY graph_name`;

/** One GROUP BY over the latest versions. */
export function sqliteInstanceCounter(db: Database): InstanceCounter {
  return () => {
    const rows = statement(db, COUNT_SQL).all() as { name: string; total: number; running: number | null }[];
    return new Map(rows.map((r) => [r.name, { total: Number(r.total), running: Number(r.running ?? 0) }]));
  };
}

const PG_COUNT_SQL = `SELECT graph_name AS name, COUNT(*)::int AS total, COUNT(*) FILTER (WHERE status = 'running')::int AS running
  FROM graph_instances WHERE is_latest GROUP BY graph_name`;

/** The same GROUP BY over PostgreSQL's graph_instances (its (is_latest, status) index). */
export function pgInstanceCounter(db: PgQueryable): InstanceCounter {
  return async () => {
    const { rows } = await db.query<{ name: string; total: number; running: number }>({ name: "modex_instance_counts", text: PG_COUNT_SQL, values: [] });
    return new Map(rows.map((r) => [r.name, { total: r.total, running: r.running }]));
  };
}

/** For in-memory stores (tests): counts a full listing; the store is synchronous there. */
export function memoryInstanceCounter(store: GraphInstanceStore): InstanceCounter {
  return () => {
    const rows = store.list({ limit: Number.MAX_SAFE_INTEGER });
    if (rows instanceof Promise) throw new Error("memoryInstanceCounter needs a synchronous store");
    const counts = new Map<string, InstanceCounts>();
    for (const r of rows) {
      const c = counts.get(r.graphName) ?? { running: 0, total: 0 };
      c.total++;
      if (r.status === "running") c.running++;
      counts.set(r.graphName, c);
    }
    return counts;
  };
}
