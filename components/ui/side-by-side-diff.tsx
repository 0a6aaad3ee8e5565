import type { DiffRow } from "@/components/ui/side-by-side";

/** Each side's background by row kind: what left in red, what came in green, the missing side dimmed. */
const ROW_LOOK = {
  same: ["", ""],
  changed: ["bg-rose-500/10", "bg-emerald-500/10"],
  removed: ["bg-rose-500/10", "bg-zinc-900/60"],
  added: ["bg-zinc-900/60", "bg-emerald-500/10"],
} as const;

/** How many rows differ, for the "N changed lines" beside a diff. */
export function changedLines(rows: readonly DiffRow[]): string {
  const n = rows.filter((r) => r.kind !== "same").length;
  return `${n} changed ${n === 1 ? "line" : "lines"}`;
}

/**
 * Two texts side by side (rows from `sideBySide`), line numbers on each side: the graph History's and an
 * agent revision's diff. Plain HTML rather than Monaco's diff editor, which the bundled Monaco leaves out
 * (components/graphs/monaco-setup.ts).
 */
export function SideBySideDiff({ rows }: { rows: readonly DiffRow[] }) {
  return (
    <div data-testid="side-by-side-diff" className="overflow-hidden rounded-lg border border-white/10 font-mono text-[12px] leading-5">
      {rows.map((row, i) => (
        <div key={i} data-kind={row.kind} className="grid grid-cols-2 divide-x divide-white/10">
          {([row.left, row.right] as const).map((side, j) => (
            <div key={j} className={`flex min-w-0 ${ROW_LOOK[row.kind][j]}`}>
              <span className="w-10 shrink-0 select-none pr-2 text-right text-zinc-600">{side?.n ?? ""}</span>
              <span className="whitespace-pre-wrap break-all pr-2 text-zinc-200">{side?.text ?? ""}</span>
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}
