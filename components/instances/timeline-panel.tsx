"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { EventTimeline } from "@/components/instances/event-timeline";
import { describeEvent } from "@/components/instances/run-model";
import type { InstanceTimeline, TimelineRowDto } from "@/components/instances/use-instance-timeline";
import { Skeleton } from "@/components/ui/skeleton";

const MIN_HEIGHT = 120;
const DEFAULT_HEIGHT = 240;
const HEIGHT_KEY = "modex.timelineHeight";
/** Event types a person filters by, in the order a run emits them. */
const TYPES = [
  "instance_status",
  "run_started",
  "node_started",
  "node_completed",
  "node_failed",
  "node_cancelled",
  "deliver_staged",
  "deliver_promoted",
  "deliver_consumed",
  "interrupt_raised",
  "drained",
  "node_activity",
  "run_finished",
] as const;

export interface TimelineFilter {
  node: string;
  type: string;
  /** Show the events inside subgraph nodes (their inner graphs' events). */
  inner: boolean;
}

/** Node names an event concerns, qualified by its scope the way run states are. */
function nodesOf(row: TimelineRowDto): string[] {
  const names = describeEvent(row).nodes;
  return row.scope ? [row.scope, ...names.map((n) => `${row.scope}/${n}`)] : names;
}

function matches(row: TimelineRowDto, f: TimelineFilter): boolean {
  if (!f.inner && row.scope) return false;
  if (f.type && row.event.type !== f.type) return false;
  if (f.node && !nodesOf(row).includes(f.node)) return false;
  return true;
}

/**
 * The event timeline below the canvas: resizable (drag its top edge; the height is remembered in this
 * browser), filterable by node and event type, with a switch for subgraphs' inner events. Unfiltered it
 * pages rows in from the server as they scroll into view; a filter loads the version's events once and
 * filters them here, then keeps up with live events.
 */
export function TimelinePanel({
  stream,
  nodes,
  selected,
  onSelect,
  cursor,
  header,
  onFork,
  onResize,
}: {
  stream: InstanceTimeline;
  /** The filter's node choices: the graph's nodes and subgraphs' inner nodes (`sub/inner`). */
  nodes: readonly string[];
  selected: number | null;
  onSelect(index: number | null, row: TimelineRowDto | undefined): void;
  cursor: number | null;
  /** Shown above the list (the replay bar). */
  header?: React.ReactNode;
  /** "Fork from here" on the selected event: a new instance from the point right after it. */
  onFork?: (index: number, row: TimelineRowDto) => void;
  /** Called when the user changes the panel's height (or it takes the height they chose before). */
  onResize?: () => void;
}) {
  const [height, setHeight] = useState(DEFAULT_HEIGHT);
  useEffect(() => {
    const saved = Number(localStorage.getItem(HEIGHT_KEY));
    if (saved >= MIN_HEIGHT && saved !== DEFAULT_HEIGHT) {
      onResize?.();
      setHeight(saved);
    }
    // Once, on mount: the remembered height.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const drag = useRef<{ y: number; h: number } | null>(null);
  const onPointerDown = (e: React.PointerEvent) => {
    drag.current = { y: e.clientY, h: height };
    (e.target as HTMLElement).setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: React.PointerEvent) => {
    if (!drag.current) return;
    const max = Math.max(MIN_HEIGHT, window.innerHeight - 220);
    onResize?.();
    setHeight(Math.min(max, Math.max(MIN_HEIGHT, drag.current.h + drag.current.y - e.clientY)));
  };
  const onPointerUp = () => {
    if (drag.current) localStorage.setItem(HEIGHT_KEY, String(height));
    drag.current = null;
  };

  const [filter, setFilter] = useState<TimelineFilter>({ node: "", type: "", inner: true });
  const active = filter.node !== "" || filter.type !== "" || !filter.inner;
  // Filtering needs every row of the version: loaded once per version when a filter is first set.
  const [all, setAll] = useState<{ version: number | undefined; rows: TimelineRowDto[] } | null>(null);
  const loadedAll = all && all.version === stream.version ? all.rows : null;
  useEffect(() => {
    if (!active || loadedAll || !stream.loaded) return;
    let cancelled = false;
    const version = stream.version;
    void stream.allEvents().then((rows) => !cancelled && setAll({ version, rows }));
    return () => {
      cancelled = true;
    };
  }, [active, loadedAll, stream]);
  const filtered = useMemo(() => {
    if (!active || !loadedAll) return null;
    const out: { row: TimelineRowDto; index: number }[] = [];
    const push = (row: TimelineRowDto | undefined, index: number) => row && matches(row, filter) && out.push({ row, index });
    loadedAll.forEach((row, i) => push(row, i));
    // Live rows that arrived after the load.
    for (let i = loadedAll.length; i < stream.count; i++) push(stream.rowAt(i), i);
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, loadedAll, filter, stream.count, stream.rowAt]);

  const rowAt = useCallback((i: number) => (filtered ? filtered[i]?.row : stream.rowAt(i)), [filtered, stream]);
  const numberOf = useCallback((i: number) => stream.before + (filtered ? (filtered[i]?.index ?? i) : i) + 1, [filtered, stream.before]);
  const toStream = (i: number | null) => (i === null ? null : filtered ? (filtered[i]?.index ?? null) : i);
  const fromStream = (i: number | null) => (i === null ? null : filtered ? filtered.findIndex((f) => f.index === i) : i);
  const shownSelected = fromStream(selected);
  const selectedRow = selected === null ? undefined : stream.rowAt(selected);
  const hasInner = nodes.some((n) => n.includes("/"));
  const select = "rounded border border-white/10 bg-zinc-950 px-1.5 py-0.5 text-[11px] normal-case tracking-normal text-zinc-300";

  return (
    <div className="flex shrink-0 flex-col border-t border-white/10 bg-zinc-950" style={{ height }} data-testid="timeline-panel">
      <div
        role="separator"
        aria-orientation="horizontal"
        aria-label="Resize the event timeline"
        data-testid="timeline-resize"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        className="h-1.5 shrink-0 cursor-row-resize bg-white/[0.02] hover:bg-indigo-400/30"
      />
      {header}
      <div className="flex items-center gap-2 px-4 py-1 text-[11px] uppercase tracking-wide text-zinc-500">
        <span data-testid="timeline-count">
          Events · {filtered ? `${filtered.length} of ${stream.count}` : stream.count}
        </span>
        <select aria-label="Filter events by node" className={select} value={filter.node} onChange={(e) => setFilter({ ...filter, node: e.target.value })}>
          <option value="">every node</option>
          {nodes.map((n) => (
            <option key={n} value={n}>
              {n.replace("/", " › ")}
            </option>
          ))}
        </select>
        <select aria-label="Filter events by type" className={select} value={filter.type} onChange={(e) => setFilter({ ...filter, type: e.target.value })}>
          <option value="">every type</option>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t.replace(/_/g, " ")}
            </option>
          ))}
        </select>
        {hasInner && (
          <label className="flex items-center gap-1 normal-case tracking-normal text-zinc-400">
            <input type="checkbox" aria-label="Show subgraph events" checked={filter.inner} onChange={(e) => setFilter({ ...filter, inner: e.target.checked })} />
            subgraph events
          </label>
        )}
        {active && (
          <button type="button" className="normal-case tracking-normal text-zinc-400 hover:text-white" onClick={() => setFilter({ node: "", type: "", inner: true })}>
            clear
          </button>
        )}
        {stream.error && <span className="ml-auto normal-case text-rose-300">{stream.error}</span>}
        {onFork && selectedRow && !selectedRow.scope && (
          <button
            type="button"
            onClick={() => onFork(selected!, selectedRow)}
            className="ml-auto rounded border border-white/15 px-2 py-0.5 normal-case tracking-normal text-zinc-200 hover:border-indigo-400/60 hover:text-white"
            title="Start a new instance from the state and open delivers right after this event"
          >
            Fork from event {stream.before + selected! + 1}
          </button>
        )}
      </div>
      <div className="min-h-0 flex-1" data-testid="event-timeline">
        {!stream.loaded || (active && !filtered) ? (
          <div className="space-y-1.5 px-4">{[1, 2, 3, 4].map((i) => <Skeleton key={i} className="h-4" />)}</div>
        ) : (
          <EventTimeline
            count={filtered ? filtered.length : stream.count}
            rowAt={rowAt}
            numberOf={numberOf}
            onRows={filtered ? () => {} : stream.showRows}
            selected={shownSelected === -1 ? null : shownSelected}
            cursor={filtered ? null : cursor}
            emptyText={filtered ? "No event matches this filter." : undefined}
            onSelect={(i) => {
              const index = toStream(i);
              onSelect(index === selected ? null : index, index === null ? undefined : stream.rowAt(index) ?? rowAt(i));
            }}
          />
        )}
      </div>
    </div>
  );
}
