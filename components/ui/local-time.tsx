"use client";

import { clockTime, timeAgo, timestamp } from "@/components/ui/format-time";
import { useHydrated } from "@/components/ui/use-hydrated";

const FORMATS = { timestamp, clock: clockTime, ago: timeAgo } as const;

/**
 * A time in the viewer's zone and language. The server knows neither: it sends an empty `<time>` (with
 * the machine-readable value), filled in as soon as the page is hydrated.
 */
export function LocalTime({ at, format = "timestamp", now, className, title }: { at: number | null | undefined; format?: keyof typeof FORMATS; now?: number; className?: string; title?: string }) {
  const hydrated = useHydrated();
  const text = !hydrated ? "" : format === "ago" ? timeAgo(at, now) : FORMATS[format](at);
  return (
    <time dateTime={at === null || at === undefined || !Number.isFinite(at) ? undefined : new Date(at).toISOString()} className={className} title={hydrated ? title : undefined}>
      {text}
    </time>
  );
}
