/** Plain-text tables for a terminal: a header, a rule, left-aligned columns, long cells cut with "…". */

const MAX_CELL = 60;

/** A column with `whole: true` is never cut (a URL to copy); put it last, where its length pushes nothing. */
export function renderTable(rows, columns) {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) => columns.map((c) => cell(typeof c.value === "function" ? c.value(row) : row[c.key], c.whole ? Infinity : MAX_CELL)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i].length)));
  const line = (values) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(columns.map((c) => c.title)), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

export function cell(value, max = MAX_CELL) {
  if (value === null || value === undefined) return "-";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Milliseconds since the epoch → `2026-11-30 04:21:42` (UTC, so output is stable across machines). */
export function formatTime(ms) {
  if (typeof ms !== "number") return "-";
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

/**
 * Milliseconds since the epoch as the wall-clock time in `timeZone`, the zone named after it:
 * `2026-12-04 02:00:00 Europe/Paris`. A zone this runtime does not know is shown in UTC, saying so.
 */
export function formatTimeIn(ms, timeZone) {
  if (typeof ms !== "number") return "-";
  let parts;
  try {
    parts = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(ms);
  } catch {
    return `${formatTime(ms)} UTC`;
  }
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${timeZone}`;
}

export function formatDuration(startMs, endMs) {
  if (typeof startMs !== "number" || typeof endMs !== "number") return "-";
  const ms = endMs - startMs;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
