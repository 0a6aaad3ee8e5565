"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { StoredEventDto, TimelineSummaryDto } from "@/components/api/contract";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { applyEvent } from "@/components/instances/run-model";
import { copyRunState, emptyRunState, type RunState, runStateOf } from "@/shared/run-state";

/** Rows per page when the user scrolls back. */
const PAGE = 200;

/** A timeline row: the event, and the subgraph node it happened inside (absent in the outer graph). */
export type TimelineRowDto = StoredEventDto & { scope?: string };

export interface InstanceTimeline {
  /** The version the rows and the model describe; undefined until the first summary. */
  version: number | undefined;
  /** Rows of the version's timeline (grows as live events arrive). */
  count: number;
  /** Events of the instance's earlier versions: row i is event number before + i + 1 of the instance. */
  before: number;
  /** The run as the version's events fold to, live events included. */
  model: RunState;
  /** Row `i`, or undefined while its page loads (`showRows` asks for it). */
  rowAt(i: number): TimelineRowDto | undefined;
  /** The rows on screen: loads their pages. */
  showRows(first: number, last: number): void;
  /** Every event of the version up to now (replay), loaded on first use. */
  allEvents(): Promise<TimelineRowDto[]>;
  loaded: boolean;
  live: "connecting" | "live" | "closed" | "error";
  error: string | null;
}

/**
 * The instance's timeline without its whole event log: the server's summary of the shown version
 * (folded run state, row count, last rows), then the live tail over SSE from the summary's last event
 * id, applied on top one event at a time. Older rows load a page at a time as they scroll into view.
 * Arrivals are batched into one React update per animation frame; `onLive` sees each live event as it
 * arrives, before that render, so the canvas can start its pulse at once.
 */
export function useInstanceTimeline(
  instanceId: string,
  version: number | undefined,
  onLive: (e: StoredEventDto) => void,
  initial?: TimelineSummaryDto,
): InstanceTimeline {
  const client = useModexClient();
  // The summary of the version asked for (the latest while `version` is not known yet: the caller
  // learns it from `instances.get`, fetched alongside, and then asks for what it already has). The
  // page may hand over the one it fetched while rendering on the server.
  const [fetched, setFetched] = useState<{ instanceId: string; summary: TimelineSummaryDto } | null>(() => (initial ? { instanceId, summary: initial } : null));
  const [summaryError, setSummaryError] = useState<string | null>(null);
  const base = fetched?.instanceId === instanceId ? fetched.summary : undefined;
  useEffect(() => {
    if (base && (version === undefined || base.version === version)) return;
    let cancelled = false;
    client.instances.timeline.query({ instanceId, version }).then(
      (summary) => !cancelled && setFetched({ instanceId, summary }),
      (e: unknown) => !cancelled && setSummaryError(errorMessage(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [client, instanceId, version, base]);

  // Live events of every version since the first summary, in id order.
  const liveEvents = useRef<StoredEventDto[]>([]);
  const [tick, setTick] = useState(0);
  const [live, setLive] = useState<InstanceTimeline["live"]>("connecting");
  const [liveError, setLiveError] = useState<string | null>(null);
  const onLiveRef = useRef(onLive);
  onLiveRef.current = onLive;
  const startAfter = base?.lastEventId;
  const subscribed = startAfter !== undefined;

  useEffect(() => {
    if (!subscribed || startAfter === undefined) return;
    let cancelled = false;
    let raf = 0;
    let lastId = startAfter;
    liveEvents.current = [];
    const sub = client.instances.onEvent.subscribe(
      { instanceId, lastEventId: lastId > 0 ? String(lastId) : null },
      {
        onStarted: () => !cancelled && setLive("live"),
        onData: (tracked) => {
          const data = (tracked as { data?: StoredEventDto }).data ?? (tracked as unknown as StoredEventDto);
          if (data.id <= lastId) return;
          lastId = data.id;
          liveEvents.current.push(data);
          onLiveRef.current(data);
          raf ||= requestAnimationFrame(() => {
            raf = 0;
            if (!cancelled) setTick((t) => t + 1);
          });
        },
        onError: (e) => {
          if (cancelled) return;
          setLive("error");
          setLiveError(errorMessage(e));
        },
        onComplete: () => !cancelled && setLive("closed"),
      },
    );
    return () => {
      cancelled = true;
      if (raf) cancelAnimationFrame(raf);
      sub.unsubscribe();
    };
    // One subscription per instance: later summaries (another version) start at or after this one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, instanceId, subscribed]);

  // The summary's model with this version's live events after it. Folded incrementally: a frame's
  // batch costs its own events, not the run's.
  // `work` is folded in place; React gets a copy (`model`) whenever a batch changed it.
  const folded = useRef<{ base: typeof base; applied: number; work: RunState; model: RunState; rows: TimelineRowDto[] } | null>(null);
  const current = useMemo(() => {
    void tick;
    if (!base) return null;
    let f = folded.current;
    if (!f || f.base !== base) {
      const work = runStateOf(base.state);
      f = folded.current = { base, applied: 0, work, model: copyRunState(work), rows: [] };
    }
    const all = liveEvents.current;
    let changed = false;
    for (; f.applied < all.length; f.applied++) {
      const e = all[f.applied];
      if (e.version !== base.version || e.id <= base.lastEventId) continue;
      const scope = applyEvent(f.work, e);
      f.rows.push(scope ? { ...e, scope } : e);
      changed = true;
    }
    if (changed) f.model = copyRunState(f.work);
    return { model: f.model, count: base.count + f.rows.length, rows: f.rows };
  }, [base, tick]);

  // Pages of older rows, per summary.
  const [pages, setPages] = useState<{ base: typeof base; rows: Map<number, TimelineRowDto[]> }>({ base: undefined, rows: new Map() });
  const asked = useRef(new Set<string>());
  const showRows = useCallback(
    (first: number, last: number) => {
      if (!base) return;
      // Only rows before the summary's tail need a page (the tail came with it): a list opened at its
      // end asks for nothing.
      const end = Math.min(last, base.count - base.tail.length);
      for (let p = Math.floor(first / PAGE); p * PAGE < end && first < end; p++) {
        const key = `${base.version}:${base.lastEventId}:${p}`;
        if (asked.current.has(key)) continue;
        asked.current.add(key);
        void client.instances.timelineRows.query({ instanceId, version: base.version, offset: p * PAGE, limit: PAGE }).then(
          (rows) => setPages((s) => ({ base, rows: new Map(s.base === base ? s.rows : []).set(p, rows) })),
          () => asked.current.delete(key),
        );
      }
    },
    [base, client, instanceId],
  );

  const rowAt = useCallback(
    (i: number): TimelineRowDto | undefined => {
      if (!base || !current) return undefined;
      if (i >= base.count) return current.rows[i - base.count];
      const tailStart = base.count - base.tail.length;
      if (i >= tailStart) return base.tail[i - tailStart];
      return pages.base === base ? pages.rows.get(Math.floor(i / PAGE))?.[i % PAGE] : undefined;
    },
    [base, current, pages],
  );

  const allEvents = useCallback(async (): Promise<TimelineRowDto[]> => {
    if (!base) return [];
    const out: TimelineRowDto[] = [];
    for (let offset = 0; offset < base.count; offset += 1_000) {
      out.push(...(await client.instances.timelineRows.query({ instanceId, version: base.version, offset, limit: 1_000 })));
    }
    return [...out, ...(folded.current?.base === base ? folded.current.rows : [])];
  }, [base, client, instanceId]);

  return {
    version: base?.version,
    count: current?.count ?? 0,
    before: base?.before ?? 0,
    model: current?.model ?? EMPTY,
    rowAt,
    showRows,
    allEvents,
    loaded: !!base || summaryError !== null,
    live: summaryError !== null ? "error" : live,
    error: summaryError ?? liveError,
  };
}

const EMPTY: RunState = emptyRunState();
