import { diffLines } from "diff";

/** One row of a side-by-side diff: a line on the left, on the right, or both. */
export interface DiffRow {
  readonly left: { readonly n: number; readonly text: string } | null;
  readonly right: { readonly n: number; readonly text: string } | null;
  readonly kind: "same" | "changed" | "removed" | "added";
}

function linesOf(value: string): string[] {
  const lines = value.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Lines removed and added at the same place sit on the same rows, as a reviewer reads them. */
export function sideBySide(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let l = 1;
  let r = 1;
  let removed: string[] = [];
  const flush = (added: string[]) => {
    const n = Math.max(removed.length, added.length);
    for (let i = 0; i < n; i++) {
      const left = i < removed.length ? { n: l++, text: removed[i] } : null;
      const right = i < added.length ? { n: r++, text: added[i] } : null;
      rows.push({ left, right, kind: left && right ? "changed" : left ? "removed" : "added" });
    }
    removed = [];
  };
  for (const change of diffLines(before, after)) {
    const lines = linesOf(change.value);
    if (change.removed) {
      removed.push(...lines);
    } else if (change.added) {
      flush(lines);
    } else {
      flush([]);
      for (const text of lines) rows.push({ left: { n: l++, text }, right: { n: r++, text }, kind: "same" });
    }
  }
  flush([]);
  return rows;
}
