import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import type { Awaitable } from "@/server/graph/awaitable";
import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import { INSTANCE_STATUSES, type InstanceStatus } from "@/server/graph/persistence/records";
import type { QueuedWork } from "@/shared/queued-work";
import { ServiceError } from "./errors";
import { queuedWorkOf, queuedWorkOfAttr, RESUME_DUE_ATTR } from "./resume-due";
import { waitingFor, waitKindOf, WAITING_FOR_ATTR, type WaitKind } from "./waiting-for";

/** Which archived instances a listing shows. */
export const ARCHIVED_FILTERS = ["exclude", "only", "include"] as const;
export type ArchivedFilter = (typeof ARCHIVED_FILTERS)[number];

export interface InstanceListQuery {
  status?: InstanceStatus;
  /** true: only runs waiting for a person's answer (none queued for a worker yet); false: none of them. */
  waiting?: boolean;
  /** Runs of this graph name only. */
  graph?: string;
  /** A substring (case-insensitive for ASCII) of the instance id or of any version's input JSON. */
  q?: string;
  /** The latest version started at or after this time (ms). */
  from?: number;
  /** The latest version started before this time (ms). */
  to?: number;
  /** Default "exclude": archived runs are hidden until asked for. */
  archived?: ArchivedFilter;
  /** `nextCursor` of the page before. */
  cursor?: string;
  /** Rows per page, default 50. */
  limit?: number;
}

export interface InstanceListItem {
  instanceId: string;
  version: number;
  status: InstanceStatus;
  graphName: string;
  specId: string | null;
  createdAt: number;
  updatedAt: number;
  /**
   * True when a PAUSED instance waits for a human's answer. Not once an answer or decision is queued for
   * a worker (`queued`, a cluster): it waits for nobody then, and lists as queued.
   */
  waiting: boolean;
  /** What a waiting instance waits for (an agent's approval or a person's input); null when not waiting. */
  waitKind: WaitKind | null;
  /**
   * On a cluster: work accepted that no worker has started yet (the instance's `resume_due`, as in the
   * instance view's summary); null otherwise. Nothing sets it on SQLite (one process runs at once).
   */
  queued: QueuedWork | null;
  archived: boolean;
}

/** Counts over the query's graph, text, time and archived filters, before its status/waiting filter. */
export interface InstanceListCounts {
  all: number;
  byStatus: Record<InstanceStatus, number>;
  waiting: number;
  /** Archived runs matching the other filters (whatever `archived` asked for). */
  archived: number;
}

export interface InstanceListPage {
  items: InstanceListItem[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
  /** Rows matching the whole query, over every page. */
  total: number;
  counts: InstanceListCounts;
}

/** The Instances list's read side: a page of the latest versions, newest activity first, with totals. */
export interface InstanceListing {
  page(query: InstanceListQuery): Awaitable<InstanceListPage>;
  /** A version's graph state as last saved (the store's contract reads only the latest's). */
  versionState(instanceId: string, version: number): Awaitable<unknown>;
}

export const DEFAULT_PAGE = 50;

interface Cursor {
  updatedAt: number;
  instanceId: string;
}

/** Opaque to clients: `<updatedAt>.<instanceId>` of the last row of a page. */
export function encodeCursor(c: Cursor): string {
  return `${c.updatedAt}.${c.instanceId}`;
}

export function decodeCursor(s: string): Cursor {
  const dot = s.indexOf(".");
  const updatedAt = Number(s.slice(0, dot));
  if (dot <= 0 || !Number.isSafeInteger(updatedAt) || dot === s.length - 1) throw new ServiceError("BAD_REQUEST", `not a list cursor: ${s}`);
  return { updatedAt, instanceId: s.slice(dot + 1) };
}

export function emptyCounts(): InstanceListCounts {
  return { all: 0, byStatus: Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, 0])) as Record<InstanceStatus, number>, waiting: 0, archived: 0 };
}

/** How many rows of the counts match the query's own status/waiting filter. */
export function totalOf(counts: InstanceListCounts, q: InstanceListQuery): number {
  if (q.waiting === true) return q.status === undefined || q.status === "paused" ? counts.waiting : 0;
  const base = q.status === undefined ? counts.all : counts.byStatus[q.status];
  if (q.waiting === false && (q.status === undefined || q.status === "paused")) return base - counts.waiting;
  return base;
}

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** Paused with a question, and no answer queued for a worker (json_extract reads JSON null, its start's clear, as NULL). */
const WAITS_SQL = `json_extract(g.attrs, '$.${WAITING_FOR_ATTR}') IS NOT NULL AND json_extract(g.attrs, '$.${RESUME_DUE_ATTR}') IS NULL`;
const WAITING_SQL = `CASE WHEN g.status = 'paused' THEN ${WAITS_SQL} ELSE 0 END`;
const ARCHIVED_SQL = `g.instance_id IN (SELECT instance_id FROM archived_instances)`;

/**
 * SQLite. The page walks an index in "latest activity first" order, (is_latest, updated_at, …) or, for
 * one graph, (is_latest, graph_name, updated_at, …), and stops after `limit` matches; archived-only
 * pages start from the (few) archived ids instead. The totals are three small queries rather than one
 * GROUP BY that reads every row: the count per status from an index alone ((is_latest, status), or the
 * graph's), the runs waiting for a person among the paused ones only (their attrs say so), and the
 * archived ones starting from the archived ids; archived runs are then taken out of the first two.
 * A time range from `from` on also bounds `updated_at` (a run's activity never precedes its start), so
 * it reads only the recent end of the activity index.
 */
export function sqliteInstanceListing(db: Database): InstanceListing {
  return {
    versionState(instanceId, version) {
      const row = statement(db, `SELECT state FROM graph_instances WHERE instance_id = ? AND version = ?`).get(instanceId, version) as { state: string | null } | undefined;
      return row?.state ? (JSON.parse(row.state) as unknown) : null;
    },
    page(query) {
      const limit = query.limit ?? DEFAULT_PAGE;
      const f = filtersOf(query);
      const all = f.where.join(" AND ");
      const byStatus = statement(db, `SELECT g.status AS status, COUNT(*) AS n FROM ${f.from} WHERE ${all} GROUP BY g.status`).all(...f.fromParams, ...f.params) as {
        status: InstanceStatus;
        n: number;
      }[];
      const waitingAll = (
        statement(db, `SELECT COUNT(*) AS n FROM ${f.from} WHERE ${all} AND g.status = 'paused' AND ${WAITS_SQL}`).get(
          ...f.fromParams,
          ...f.params,
        ) as { n: number }
      ).n;
      const archivedFrom = `archived_instances a CROSS JOIN graph_instances g ON g.instance_id = a.instance_id`;
      const archivedWhere = f.search ? [...f.where, `g.instance_id IN (SELECT instance_id FROM instance_search WHERE text LIKE ?)`] : f.where;
      const archivedParams = f.search ? [...f.params, f.search] : f.params;
      const archivedRows = statement(
        db,
        `SELECT g.status AS status, ${WAITING_SQL} AS waiting, COUNT(*) AS n FROM ${archivedFrom} WHERE ${archivedWhere.join(" AND ")} GROUP BY 1, 2`,
      ).all(...archivedParams) as { status: InstanceStatus; waiting: number; n: number }[];

      const archived = query.archived ?? "exclude";
      const counts = emptyCounts();
      for (const r of archivedRows) counts.archived += r.n;
      if (archived === "only") {
        for (const r of archivedRows) {
          counts.all += r.n;
          counts.byStatus[r.status] += r.n;
          if (r.waiting) counts.waiting += r.n;
        }
      } else {
        for (const r of byStatus) {
          counts.all += r.n;
          counts.byStatus[r.status] = (counts.byStatus[r.status] ?? 0) + r.n;
        }
        counts.waiting = waitingAll;
        if (archived === "exclude") {
          for (const r of archivedRows) {
            counts.all -= r.n;
            counts.byStatus[r.status] -= r.n;
            if (r.waiting) counts.waiting -= r.n;
          }
        }
      }

      const only = archived === "only";
      const pageWhere = only ? [...archivedWhere] : [...f.where];
      const pageParams = only ? [...archivedParams] : [...f.fromParams, ...f.params];
      if (archived === "exclude") pageWhere.push(`NOT ${ARCHIVED_SQL}`);
      if (query.status !== undefined) {
        pageWhere.push("g.status = ?");
        pageParams.push(query.status);
      }
      if (query.waiting !== undefined) pageWhere.push(`${WAITING_SQL} = ${query.waiting ? 1 : 0}`);
      if (query.cursor !== undefined) {
        const c = decodeCursor(query.cursor);
        pageWhere.push("(g.updated_at < ? OR (g.updated_at = ? AND g.instance_id < ?))");
        pageParams.push(c.updatedAt, c.updatedAt, c.instanceId);
      }
      const rows = statement(
        db,
        `SELECT g.instance_id AS instanceId, g.version AS version, g.status AS status, g.graph_name AS graphName,
                g.spec_id AS specId, g.created_at AS createdAt, g.updated_at AS updatedAt,
                ${WAITING_SQL} AS waiting, json_extract(g.attrs, '$.${WAITING_FOR_ATTR}.kind') AS kind,
                CASE json_type(g.attrs, '$.${RESUME_DUE_ATTR}') WHEN 'object' THEN json_extract(g.attrs, '$.${RESUME_DUE_ATTR}') END AS due, ${ARCHIVED_SQL} AS archived
           FROM ${only ? archivedFrom : f.from} WHERE ${pageWhere.join(" AND ")}
          ORDER BY g.updated_at DESC, g.instance_id DESC LIMIT ?`,
      ).all(...pageParams, limit + 1) as (Omit<InstanceListItem, "waiting" | "waitKind" | "queued" | "archived"> & { waiting: number; kind: unknown; due: string | null; archived: number })[];
      const items = rows.slice(0, limit).map(({ kind, due, ...r }) => ({
        ...r,
        waiting: r.waiting === 1,
        waitKind: r.waiting === 1 ? waitKindOf(kind) : null,
        queued: due === null ? null : queuedWorkOfAttr(JSON.parse(due)),
        archived: r.archived === 1,
      }));
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null, total: totalOf(counts, query), counts };
    },
  };
}

/**
 * The FROM clause and the conditions every listing query shares (graph, time, text). A text search of
 * three characters or more starts from the trigram index (`instance_search`, see the migration) and
 * looks each match up by key: it reads matching rows only (`search` is its LIKE pattern, `fromParams`
 * the FROM clause's parameters). A shorter one, or one with LIKE's wildcard characters in it, scans
 * the inputs.
 */
function filtersOf(query: InstanceListQuery): { from: string; fromParams: unknown[]; search: string | null; where: string[]; params: unknown[] } {
  let from = "graph_instances g";
  let search: string | null = null;
  const where: string[] = ["g.is_latest = 1"];
  const params: unknown[] = [];
  const q = query.q?.trim() ?? "";
  if (q !== "") {
    if (q.length >= 3 && !/[\\%_]/.test(q)) {
      search = `%${q}%`;
      from = `(SELECT DISTINCT instance_id FROM instance_search WHERE text LIKE ?) s CROSS JOIN graph_instances g ON g.instance_id = s.instance_id`;
    } else {
      where.push(`(g.instance_id LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM graph_io_records io WHERE io.instance_id = g.instance_id AND io.input LIKE ? ESCAPE '\\'))`);
      params.push(likePattern(q), likePattern(q));
    }
  }
  if (query.graph !== undefined) {
    where.push("g.graph_name = ?");
    params.push(query.graph);
  }
  if (query.from !== undefined) {
    where.push("g.created_at >= ?", "g.updated_at >= ?");
    params.push(query.from, query.from);
  }
  if (query.to !== undefined) {
    where.push("g.created_at < ?");
    params.push(query.to);
  }
  return { from, fromParams: search === null ? [] : [search], search, where, params };
}

/** In-memory stores (unit tests): filters a full listing in JavaScript; archived ids come from `archived`. */
export function memoryInstanceListing(store: GraphInstanceStore, archivedIds: () => Awaitable<ReadonlySet<string>>): InstanceListing {
  return {
    async versionState(instanceId, version) {
      return (await store.load(instanceId))?.version === version ? ((await store.loadState(instanceId)) ?? null) : null;
    },
    async page(query) {
      const limit = query.limit ?? DEFAULT_PAGE;
      const archivedSet = await archivedIds();
      const needle = query.q?.trim().toLowerCase();
      const matches: InstanceListItem[] = [];
      for (const r of await store.list({ limit: Number.MAX_SAFE_INTEGER })) {
        if (query.graph !== undefined && r.graphName !== query.graph) continue;
        if (query.from !== undefined && r.createdAt < query.from) continue;
        if (query.to !== undefined && r.createdAt >= query.to) continue;
        if (needle) {
          const inputs = (await store.ioRecords(r.instanceId)).map((io) => JSON.stringify(io.input).toLowerCase());
          if (!r.instanceId.toLowerCase().includes(needle) && !inputs.some((i) => i.includes(needle))) continue;
        }
        const { instanceId, version, status, graphName, specId, createdAt, updatedAt } = r;
        const queued = queuedWorkOf(r);
        // An answer queued for a worker: the run waits for nobody any more.
        const wait = queued ? null : waitingFor(r);
        const waitKind = wait === null ? null : waitKindOf(wait.kind);
        matches.push({ instanceId, version, status, graphName, specId, createdAt, updatedAt, waiting: wait !== null, waitKind, queued, archived: archivedSet.has(instanceId) });
      }
      const counts = emptyCounts();
      const archived = query.archived ?? "exclude";
      const shown = matches.filter((m) => {
        if (m.archived) counts.archived++;
        return archived === "include" || (archived === "only") === m.archived;
      });
      for (const m of shown) {
        counts.all++;
        counts.byStatus[m.status]++;
        if (m.waiting) counts.waiting++;
      }
      const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
      const rows = shown
        .filter((m) => (query.status === undefined || m.status === query.status) && (query.waiting === undefined || m.waiting === query.waiting))
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.instanceId < b.instanceId ? 1 : a.instanceId > b.instanceId ? -1 : 0))
        .filter((m) => !cursor || m.updatedAt < cursor.updatedAt || (m.updatedAt === cursor.updatedAt && m.instanceId < cursor.instanceId));
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null, total: totalOf(counts, query), counts };
    },
  };
}
