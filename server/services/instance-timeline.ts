import type { EventLog, StoredEvent } from "./event-log";
import { applyRunEvent, emptyRunState, type RunState, runStateDto, type RunStateDto } from "@/shared/run-state";

/** What the instance view needs to paint a version before any timeline row: no event list. */
export interface TimelineSummary {
  version: number;
  /** Events of this version up to `lastEventId`: the timeline's row count. */
  count: number;
  /** The instance's last event id the summary covers (any version): live events resume after it. */
  lastEventId: number;
  state: RunStateDto;
  /** Events of the instance's earlier versions: row i is the instance's event number before + i + 1. */
  before: number;
  /** The version's last events (at most `tail`), oldest first: the rows a followed timeline shows. */
  tail: TimelineRow[];
}

/** A timeline row: the stored event, and the subgraph node it happened inside (see shared/run-state.ts). */
export type TimelineRow = StoredEvent & { scope?: string };

interface Folded {
  state: RunState;
  count: number;
  before: number;
  lastEventId: number;
  /** The version's last events (up to KEPT_TAIL), oldest first: a summary's tail without a query. */
  recent: TimelineRow[];
  /** Event id → scope, for the events inside a subgraph's run only (most runs have none). */
  scopes: Map<number, string>;
}

const MAX_CACHED = 64;
/** Rows a summary carries unless told otherwise: what a timeline following the tail shows first. */
const DEFAULT_TAIL = 60;
const READ_PAGE = 5_000;
/**
 * Rows of the tail kept in memory per cached fold. Reading the tail from the table costs a scan of
 * every row before it (rows by position are an OFFSET): ~7 ms on each page load of a 10,000-event run.
 */
const KEPT_TAIL = DEFAULT_TAIL;

/**
 * The event log seen version by version: a summary (the folded run state and row count) and rows by
 * position. Folds are cached per instance version and extended from where they stopped, so a
 * summary costs only the events appended since the last one (the log is append-only).
 */
export class InstanceTimeline {
  private readonly folds = new Map<string, Folded>();

  constructor(private readonly events: EventLog) {}

  async summary(args: { instanceId: string; version: number; tail?: number }): Promise<TimelineSummary> {
    const f = await this.fold(args.instanceId, args.version);
    const tail = Math.min(args.tail ?? DEFAULT_TAIL, f.count);
    return {
      version: args.version,
      count: f.count,
      lastEventId: f.lastEventId,
      state: runStateDto(f.state),
      before: f.before,
      tail:
        tail === 0
          ? []
          : tail <= f.recent.length
            ? f.recent.slice(f.recent.length - tail)
            : await this.rows({ instanceId: args.instanceId, version: args.version, offset: f.count - tail, limit: tail }),
    };
  }

  /** The version's events from position `offset` (0-based, in id order), each with its scope. */
  async rows(args: { instanceId: string; version: number; offset: number; limit: number }): Promise<TimelineRow[]> {
    const rows = await this.events.listVersion(args.instanceId, args);
    const last = rows.at(-1);
    if (!last) return rows;
    const { scopes } = await this.fold(args.instanceId, args.version);
    if (scopes.size === 0) return rows;
    return rows.map((r) => {
      const scope = scopes.get(r.id);
      return scope ? { ...r, scope } : r;
    });
  }

  /** Forgets a deleted instance's folds. */
  forget(instanceId: string): void {
    for (const key of [...this.folds.keys()]) if (key.startsWith(`${instanceId}@`)) this.folds.delete(key);
  }

  /**
   * The fold of one version, extended to the log's end. A fold is taken out of the cache while it is
   * extended, so two summaries at once never both apply the same events to it (the second starts a
   * fold of its own; whichever ends last is kept).
   */
  private async fold(instanceId: string, version: number): Promise<Folded> {
    const key = `${instanceId}@${version}`;
    let f = this.folds.get(key);
    if (f) this.folds.delete(key); // re-inserted below: the map's order is least recently used first
    f ??= { state: emptyRunState(), count: 0, lastEventId: 0, recent: [], scopes: new Map(), before: 0 };
    for (;;) {
      const page = await this.events.list(instanceId, { afterId: f.lastEventId, limit: READ_PAGE });
      for (const e of page) {
        if (e.version === version) {
          const scope = applyRunEvent(f.state, e.event, e.at);
          f.count++;
          if (scope) f.scopes.set(e.id, scope);
          f.recent.push(scope ? { ...e, scope } : e);
        } else if (e.version < version) f.before++;
        f.lastEventId = e.id;
      }
      if (f.recent.length > 2 * KEPT_TAIL) f.recent = f.recent.slice(f.recent.length - KEPT_TAIL);
      if (page.length < READ_PAGE) break;
    }
    this.folds.set(key, f);
    if (this.folds.size > MAX_CACHED) this.folds.delete(this.folds.keys().next().value as string);
    return f;
  }
}
