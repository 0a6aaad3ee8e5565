import { toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { InstanceStatus } from "@/server/graph/persistence/records";
import {
  decodeCursor,
  DEFAULT_PAGE,
  emptyCounts,
  encodeCursor,
  totalOf,
  type InstanceListCounts,
  type InstanceListing,
  type InstanceListItem,
  type InstanceListPage,
  type InstanceListQuery,
} from "./instance-listing";
import { waitKindOf, WAITING_FOR_ATTR } from "./waiting-for";
import { queuedWorkOfAttr, RESUME_DUE_ATTR } from "./resume-due";

/** Paused with a question, and no answer queued for a worker (->> reads JSON null, its start's clear, as NULL). */
const WAITING_SQL = `(g.status = 'paused' AND g.attrs ->> '${WAITING_FOR_ATTR}' IS NOT NULL AND g.attrs ->> '${RESUME_DUE_ATTR}' IS NULL)`;
const FROM_SQL = `graph_instances g LEFT JOIN archived_instances a ON a.instance_id = g.instance_id`;
/** Ids compare bytewise, as on SQLite, whatever the database's locale (see the migration's indexes). */
const ID_SQL = `g.instance_id COLLATE "C"`;
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

interface ItemRow {
  instance_id: string;
  version: number;
  status: InstanceStatus;
  graph_name: string;
  spec_id: string | null;
  created_at: Date;
  updated_at: Date;
  waiting: boolean;
  kind: string | null;
  due: unknown;
  archived: boolean;
}

/** A query's parameters, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The Instances list on PostgreSQL: the same filters, order, cursor and totals as SQLite's
 * (instance-listing.ts), over the same tables. The totals are one GROUP BY over the matching latest
 * versions (status × waiting × archived), split as the query's `archived` asks; the page walks the
 * "latest activity first" index and stops after `limit` matches. The text search matches what SQLite's
 * does: three characters or more (without LIKE's wildcards) against each version's id and the first
 * 2,000 characters of its input, anything shorter against the id or the whole input; case-insensitive.
 * A page's rows also say what a cluster has queued for them (`resume_due`, read from the attrs the row
 * already reads for what it waits for: the totals do not read it).
 */
export class PgInstanceListing implements InstanceListing {
  constructor(private readonly db: PgQueryable) {}

  async versionState(instanceId: string, version: number): Promise<unknown> {
    const { rows } = await this.db.query<{ state: unknown }>({
      name: "modex_listing_version_state",
      text: `SELECT state FROM graph_instances WHERE instance_id = $1 AND version = $2`,
      values: [instanceId, version],
    });
    return rows[0]?.state ?? null;
  }

  async page(query: InstanceListQuery): Promise<InstanceListPage> {
    const [counts, rows] = await Promise.all([this.counts(query), this.rows(query)]);
    const limit = query.limit ?? DEFAULT_PAGE;
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null, total: totalOf(counts, query), counts };
  }

  private async counts(query: InstanceListQuery): Promise<InstanceListCounts> {
    const params = new Params();
    const where = filtersOf(query, params);
    const { rows } = await this.db.query<{ status: InstanceStatus; waiting: boolean; archived: boolean; n: number }>({
      text: `SELECT g.status, ${WAITING_SQL} AS waiting, a.instance_id IS NOT NULL AS archived, COUNT(*)::int AS n
               FROM ${FROM_SQL} WHERE ${where.join(" AND ")} GROUP BY 1, 2, 3`,
      values: params.values,
    });
    const archived = query.archived ?? "exclude";
    const counts = emptyCounts();
    for (const r of rows) {
      if (r.archived) counts.archived += r.n;
      if (archived !== "include" && (archived === "only") !== r.archived) continue;
      counts.all += r.n;
      counts.byStatus[r.status] = (counts.byStatus[r.status] ?? 0) + r.n;
      if (r.waiting) counts.waiting += r.n;
    }
    return counts;
  }

  /** The page's rows and one more (there is a next page when it exists). */
  private async rows(query: InstanceListQuery): Promise<InstanceListItem[]> {
    const params = new Params();
    const where = filtersOf(query, params);
    const archived = query.archived ?? "exclude";
    if (archived === "exclude") where.push("a.instance_id IS NULL");
    if (archived === "only") where.push("a.instance_id IS NOT NULL");
    if (query.status !== undefined) where.push(`g.status = ${params.add(query.status)}`);
    if (query.waiting !== undefined) where.push(`${WAITING_SQL} = ${params.add(query.waiting)}`);
    if (query.cursor !== undefined) {
      const c = decodeCursor(query.cursor);
      const at = params.add(toTimestamp(c.updatedAt));
      where.push(`(g.updated_at < ${at}::timestamptz OR (g.updated_at = ${at}::timestamptz AND ${ID_SQL} < ${params.add(c.instanceId)}))`);
    }
    const limit = params.add((query.limit ?? DEFAULT_PAGE) + 1);
    const { rows } = await this.db.query<ItemRow>({
      text: `SELECT g.instance_id, g.version, g.status, g.graph_name, g.spec_id, g.created_at, g.updated_at,
                    ${WAITING_SQL} AS waiting, g.attrs -> '${WAITING_FOR_ATTR}' ->> 'kind' AS kind, g.attrs -> '${RESUME_DUE_ATTR}' AS due,
                    a.instance_id IS NOT NULL AS archived
               FROM ${FROM_SQL} WHERE ${where.join(" AND ")}
              ORDER BY g.updated_at DESC, ${ID_SQL} DESC LIMIT ${limit}`,
      values: params.values,
    });
    return rows.map((r) => ({
      instanceId: r.instance_id,
      version: r.version,
      status: r.status,
      graphName: r.graph_name,
      specId: r.spec_id,
      createdAt: r.created_at.getTime(),
      updatedAt: r.updated_at.getTime(),
      waiting: r.waiting,
      waitKind: r.waiting ? waitKindOf(r.kind) : null,
      queued: queuedWorkOfAttr(r.due),
      archived: r.archived,
    }));
  }
}

/** The conditions every listing query shares: latest versions, graph, time range, text. */
function filtersOf(query: InstanceListQuery, params: Params): string[] {
  const where = ["g.is_latest"];
  const q = query.q?.trim() ?? "";
  if (q !== "") {
    if (q.length >= 3 && !/[\\%_]/.test(q)) {
      // SQLite's trigram index holds each version's id and the start of its input, as one text.
      const p = params.add(`%${q}%`);
      where.push(`EXISTS (SELECT 1 FROM graph_io_records io WHERE io.instance_id = g.instance_id AND io.instance_id || ' ' || left(io.input::text, 2000) ILIKE ${p})`);
    } else {
      const p = params.add(likePattern(q));
      where.push(`(g.instance_id ILIKE ${p} OR EXISTS (SELECT 1 FROM graph_io_records io WHERE io.instance_id = g.instance_id AND io.input::text ILIKE ${p}))`);
    }
  }
  if (query.graph !== undefined) where.push(`g.graph_name = ${params.add(query.graph)}`);
  if (query.from !== undefined) {
    // A run's activity never precedes its start: bounding updated_at too reads the recent end of the index.
    const from = params.add(toTimestamp(query.from));
    where.push(`g.created_at >= ${from}::timestamptz`, `g.updated_at >= ${from}::timestamptz`);
  }
  if (query.to !== undefined) where.push(`g.created_at < ${params.add(toTimestamp(query.to))}::timestamptz`);
  return where;
}
