import type { ReactNode } from "react";

/**
 * The lists' tables (Graphs, Instances, Traces, Triggers) share one frame and one header band, so a page's
 * table reads like every other page's. Cells keep their own padding: `tight` (px-3) for a table with
 * many columns that must fit 1024 px, `compact` (px-2, px-3 from xl) for one with more still, the default
 * (px-4) otherwise; a header cell pads as its column's body cells do, so labels sit over their values.
 */
export function TableFrame({ children, className = "" }: { children: ReactNode; className?: string }) {
  return (
    <div className="overflow-hidden rounded-xl border border-white/10">
      <table className={`w-full text-left text-sm ${className}`}>{children}</table>
    </div>
  );
}

/** The header row: small uppercase labels on a faint band, ruled off from the rows. */
export function TableHead({ children }: { children: ReactNode }) {
  return (
    <thead className="border-b border-white/10 bg-white/[0.02] text-xs uppercase tracking-wide text-zinc-500" data-testid="table-head">
      <tr>{children}</tr>
    </thead>
  );
}

/** A header cell; `right` for a numeric column, `label` for a column without a visible title (actions). */
export function Th({ children, right, tight, compact, label, className = "" }: { children?: ReactNode; right?: boolean; tight?: boolean; compact?: boolean; label?: string; className?: string }) {
  return (
    <th className={`${compact ? "px-2 xl:px-3" : tight ? "px-3" : "px-4"} py-2.5 font-medium ${right ? "text-right" : ""} ${className}`}>
      {label ? <span className="sr-only">{label}</span> : children}
    </th>
  );
}
