/** Plain-text tables for a terminal: a header, a rule, left-aligned columns, long cells cut with "…". */

const MAX_CELL = 60;

export function renderTable(rows, columns) {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) => columns.map((c) => cell(typeof c.value === "function" ? c.value(row) : row[c.key])));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i].length)));
  const line = (values) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(columns.map((c) => c.title)), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

export function cell(value) {
  if (value === null || value === undefined) return "-";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, " ");
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

/** Milliseconds since the epoch → `2026-11-30 04:21:42` (UTC, so output is stable across machines). */
export function formatTime(ms) {
  if (typeof ms !== "number") return "-";
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

export function formatDuration(startMs, endMs) {
  if (typeof startMs !== "number" || typeof endMs !== "number") return "-";
  const ms = endMs - startMs;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
