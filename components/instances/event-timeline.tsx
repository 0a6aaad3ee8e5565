"use client";

import { memo, useCallback, useRef } from "react";
import { describeEvent } from "@/components/instances/run-model";
import type { TimelineRowDto } from "@/components/instances/use-instance-timeline";
import { VirtualList } from "@/components/ui/virtual-list";
import { LocalTime } from "@/components/ui/local-time";

const TYPE_COLOR: Record<string, string> = {
  instance_status: "text-sky-300",
  run_started: "text-sky-300",
  run_finished: "text-sky-300",
  node_started: "text-indigo-300",
  node_completed: "text-emerald-300",
  node_failed: "text-rose-300",
  node_cancelled: "text-zinc-400",
  deliver_staged: "text-zinc-500",
  deliver_promoted: "text-violet-300",
  deliver_consumed: "text-zinc-500",
  interrupt_raised: "text-amber-300",
  drained: "text-amber-300",
};

const ROW = 26;

/**
 * Every event of the version, virtualized; clicking one highlights its nodes and edge on the canvas.
 * Rows come from `rowAt` (the caller pages them in through `onRows` as they scroll into view); a row
 * not loaded yet shows a placeholder of the same height. `numberOf(i)` is row i's event number within
 * the instance (1, 2, … across its versions). A subgraph's inner events carry the subgraph node's name
 * (`greeting ›`) and are indented: they are the inner graph's, not the outer graph's nodes.
 */
export function EventTimeline({
  count,
  rowAt,
  numberOf,
  onRows,
  selected,
  onSelect,
  cursor,
  emptyText = "No events yet. They appear here as the run makes progress.",
}: {
  count: number;
  rowAt(i: number): TimelineRowDto | undefined;
  numberOf(i: number): number;
  onRows(first: number, last: number): void;
  selected: number | null;
  onSelect(index: number): void;
  /** In replay: events at or after this index have not happened yet. */
  cursor: number | null;
  emptyText?: string;
}) {
  // One handler for the list's lifetime, so a row re-renders only when its own props change: a live
  // run re-renders the list on every batch of events, and most rows on screen stay the same.
  const onSelectRef = useRef(onSelect);
  onSelectRef.current = onSelect;
  const select = useCallback((i: number) => onSelectRef.current(i), []);
  if (count === 0) {
    return <p className="px-4 py-6 text-center text-xs text-zinc-500">{emptyText}</p>;
  }
  return (
    <VirtualList
      ariaLabel="Event timeline"
      className="h-full"
      count={count}
      rowHeight={ROW}
      followTail={cursor === null}
      scrollToIndex={cursor !== null ? Math.max(0, cursor - 1) : selected}
      onRangeChange={onRows}
      renderRow={(i) => <TimelineRow index={i} number={numberOf(i)} ev={rowAt(i)} selected={selected === i} future={cursor !== null && i >= cursor} onSelect={select} />}
    />
  );
}

const TimelineRow = memo(function TimelineRow({
  index,
  number,
  ev,
  selected,
  future,
  onSelect,
}: {
  index: number;
  number: number;
  ev: TimelineRowDto | undefined;
  selected: boolean;
  future: boolean;
  onSelect(index: number): void;
}) {
  if (!ev) {
    return (
      <div role="listitem" aria-busy="true" className="flex h-full items-center gap-3 px-4">
        <span className="h-2.5 w-24 rounded bg-white/[0.06]" />
        <span className="h-2.5 w-10 rounded bg-white/[0.04]" />
        <span className="h-2.5 flex-1 rounded bg-white/[0.04]" />
      </div>
    );
  }
  const d = describeEvent(ev);
  // An answer or decision is a deliver to the engine, and the moment a person moved the run on to a reader.
  const color = d.title === "answered" || d.title === "decided" ? "text-emerald-300" : (TYPE_COLOR[ev.event.type] ?? "text-zinc-300");
  return (
    <button
      type="button"
      role="listitem"
      data-testid="timeline-row"
      data-type={ev.event.type}
      data-number={number}
      data-scope={ev.scope}
      onClick={() => onSelect(index)}
      className={`flex h-full w-full items-center gap-3 px-4 text-left font-mono text-[11.5px] ${
        selected ? "bg-indigo-500/15" : "hover:bg-white/[0.04]"
      } ${future ? "opacity-30" : ""}`}
    >
      <span className="w-10 shrink-0 text-right tabular-nums text-zinc-600" title={`Event ${number} of this instance (log id ${ev.id})`}>
        #{number}
      </span>
      <LocalTime at={ev.at} format="clock" className="min-w-28 shrink-0 whitespace-nowrap text-zinc-500" />
      <span data-testid="timeline-type" className={`w-40 shrink-0 truncate whitespace-nowrap ${color}`} title={d.title}>
        {d.title}
      </span>
      {ev.scope && (
        <span className="shrink-0 rounded bg-fuchsia-500/10 px-1.5 text-fuchsia-300" title={`Inside subgraph node ${ev.scope}: the inner graph's event`}>
          {ev.scope} ›
        </span>
      )}
      <span data-testid="timeline-detail" className="min-w-0 flex-1 truncate text-zinc-300" title={d.detail}>
        {d.detail}
      </span>
    </button>
  );
});
