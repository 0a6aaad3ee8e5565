"use client";

import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

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

  // A view equal to the one shown is not a new state: the scroll event a followed list causes itself
  // (below) would otherwise render every row once more after each new row.
  const showView = useCallback((top: number, height: number) => setView((v) => (v.top === top && v.height === height ? v : { top, height })), []);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => showView(el.scrollTop, el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, [showView]);

  // Following the tail: the rows at the bottom are rendered at once (not after the scroll event), and
  // the list scrolls there without reading its layout back (the content's height is count × rowHeight).
  const following = followTail && atBottom.current;
  const tailTop = Math.max(0, count * rowHeight - view.height);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && followTail && atBottom.current) el.scrollTop = count * rowHeight;
  }, [count, followTail, rowHeight]);

  useEffect(() => {
    const el = ref.current;
    if (!el || scrollToIndex === null || scrollToIndex === undefined) return;
    const top = scrollToIndex * rowHeight;
    if (top < el.scrollTop || top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top - el.clientHeight / 2;
  }, [scrollToIndex, rowHeight]);

  const top = following ? tailTop : view.top;
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((top + view.height) / rowHeight) + overscan);
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
        showView(el.scrollTop, el.clientHeight);
      }}
      className={`relative overflow-y-auto ${className}`}
    >
      <div style={{ height: count * rowHeight, position: "relative" }}>{rows}</div>
    </div>
  );
}
