"use client";

import { type ReactNode, useEffect, useLayoutEffect, useRef, useState } from "react";

export interface VirtualListProps {
  count: number;
  rowHeight: number;
  renderRow(index: number): ReactNode;
  /** Keep the newest row in view while the user is at the bottom (a live log). */
  followTail?: boolean;
  /** Scroll this row into view when it changes. */
  scrollToIndex?: number | null;
  overscan?: number;
  className?: string;
  ariaLabel?: string;
  /** The rows in the DOM (first inclusive, last exclusive), whenever they change: load their data. */
  onRangeChange?(first: number, last: number): void;
}

/**
 * A fixed-row-height virtual list: only the rows in view (plus a few) are in the DOM, so a
 * 10,000-event timeline costs what a 30-row one does.
 */
export function VirtualList({ count, rowHeight, renderRow, followTail, scrollToIndex, overscan = 8, className = "", ariaLabel, onRangeChange }: VirtualListProps) {
  const ref = useRef<HTMLDivElement>(null);
  // A followed list opens at its tail: its first render already shows (and asks for) the last rows.
  const [view, setView] = useState(() => ({ top: followTail ? Math.max(0, count * rowHeight - 400) : 0, height: 400 }));
  const atBottom = useRef(true);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setView({ top: el.scrollTop, height: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && followTail && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [count, followTail]);

  useEffect(() => {
    const el = ref.current;
    if (!el || scrollToIndex === null || scrollToIndex === undefined) return;
    const top = scrollToIndex * rowHeight;
    if (top < el.scrollTop || top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top - el.clientHeight / 2;
  }, [scrollToIndex, rowHeight]);

  const first = Math.max(0, Math.floor(view.top / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((view.top + view.height) / rowHeight) + overscan);
  useEffect(() => {
    if (last > first) onRangeChange?.(first, last);
  }, [first, last, onRangeChange]);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={i} style={{ position: "absolute", top: i * rowHeight, height: rowHeight, left: 0, right: 0 }}>
        {renderRow(i)}
      </div>,
    );
  }

  return (
    <div
      ref={ref}
      role="list"
      aria-label={ariaLabel}
      data-row-count={count}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
        setView({ top: el.scrollTop, height: el.clientHeight });
      }}
      className={`relative overflow-y-auto ${className}`}
    >
      <div style={{ height: count * rowHeight, position: "relative" }}>{rows}</div>
    </div>
  );
}
