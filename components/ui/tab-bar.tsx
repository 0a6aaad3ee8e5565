"use client";

import type { KeyboardEvent, ReactNode } from "react";

export interface TabItem<T extends string> {
  value: T;
  label: ReactNode;
}

/** `filter`: a list's filters (Instances, Traces); `small`: inside a panel; `underline`: a panel's own tabs. */
const LOOK = {
  filter: { bar: "flex flex-wrap items-center gap-1", tab: "rounded-md px-3 py-1.5 text-xs font-medium", on: "bg-white/10 text-white", off: "text-zinc-400 hover:bg-white/5 hover:text-zinc-100" },
  small: { bar: "flex flex-wrap gap-1", tab: "rounded px-2 py-0.5 text-[11px]", on: "bg-white/10 text-white", off: "text-zinc-400 hover:text-zinc-200" },
  underline: { bar: "flex gap-1 border-b border-white/10", tab: "px-2 pb-1.5 text-xs", on: "border-b-2 border-indigo-400 text-white", off: "text-zinc-400 hover:text-zinc-200" },
} as const;

/** The key that moves the selection, and where to (an index into `count` tabs), or null for any other key. */
function nextIndex(key: string, at: number, count: number): number | null {
  if (key === "ArrowRight") return (at + 1) % count;
  if (key === "ArrowLeft") return (at - 1 + count) % count;
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return null;
}

/**
 * A row of tabs (WAI-ARIA tablist): one Tab stop, the selected tab, and the arrow keys, Home and End move
 * the selection along the row (selection follows focus: each tab only filters what is already loaded or
 * switches a panel, so there is nothing to confirm). Each tab carries `data-tab` with its value.
 */
export function TabBar<T extends string>({
  label,
  tabs,
  value,
  onChange,
  look = "filter",
  className = "",
}: {
  /** What the tabs choose, for a screen reader ("Filter by status"). */
  label: string;
  tabs: readonly TabItem<T>[];
  value: T;
  onChange(value: NoInfer<T>): void;
  look?: keyof typeof LOOK;
  className?: string;
}) {
  const style = LOOK[look];
  // A value no tab has (a hand-written URL) still leaves the row reachable with Tab.
  const stop = Math.max(0, tabs.findIndex((t) => t.value === value));
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, at: number) => {
    const to = nextIndex(e.key, at, tabs.length);
    if (to === null) return;
    e.preventDefault();
    e.currentTarget.parentElement?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[to]?.focus();
    onChange(tabs[to].value);
  };
  return (
    <div role="tablist" aria-label={label} className={`${style.bar} ${className}`}>
      {tabs.map((t, i) => {
        const selected = t.value === value;
        return (
          <button
            key={t.value}
            type="button"
            role="tab"
            data-tab={t.value}
            aria-selected={selected}
            tabIndex={i === stop ? 0 : -1}
            onClick={() => onChange(t.value)}
            onKeyDown={(e) => onKeyDown(e, i)}
            className={`${style.tab} ${selected ? style.on : style.off}`}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}
