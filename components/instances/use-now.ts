"use client";

import { useEffect, useState } from "react";

/** The current time, re-read every `everyMs` (live durations and "3 s ago" labels). */
export function useNow(everyMs: number, enabled = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return;
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs, enabled]);
  return now;
}
