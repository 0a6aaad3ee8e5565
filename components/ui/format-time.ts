/** "3 min ago", "yesterday", or a date: how long ago a timestamp was, for lists. */
export function timeAgo(value: number | string | Date | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined) return "—";
  const t = typeof value === "number" ? value : new Date(value).getTime();
  if (!Number.isFinite(t)) return "—";
  const s = Math.round((now - t) / 1000);
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 2 * 86_400) return "yesterday";
  return new Date(t).toLocaleDateString(undefined, { month: "short", day: "numeric", year: "numeric" });
}

/**
 * The app's one absolute time format: "15:04:05" today, "Dec 1, 15:04:05" on another day (24-hour,
 * the browser's language for the month). Lists show `timeAgo` with this as its tooltip; the timeline
 * adds milliseconds (`clockTime`). The formatters are made once: building one per timestamp made it the
 * timeline's most expensive line (a live run re-renders its rows a few times a second).
 */
let clockFormat: Intl.DateTimeFormat | null = null;
let dayFormat: Intl.DateTimeFormat | null = null;

export function timestamp(value: number | string | Date | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined) return "—";
  const d = new Date(value);
  if (!Number.isFinite(d.getTime())) return "—";
  clockFormat ??= new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
  const clock = clockFormat.format(d);
  if (new Date(now).toDateString() === d.toDateString()) return clock;
  dayFormat ??= new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
  return `${dayFormat.format(d)}, ${clock}`;
}

/** `timestamp` with milliseconds, for the event timeline. */
export function clockTime(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return "—";
  const d = new Date(value);
  if (!Number.isFinite(d.getTime())) return "—";
  return `${timestamp(d)}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
