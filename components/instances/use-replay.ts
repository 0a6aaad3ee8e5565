"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { StoredEventDto } from "@/components/api/contract";

/**
 * Replay of a finished run: a cursor into the version's events (null = the live/final picture) and
 * playback that advances it at a steady pace, calling `onStep` for each event it passes (the
 * instance view turns deliveries into pulses there).
 */
export function useReplay(events: readonly StoredEventDto[], onStep: (e: StoredEventDto) => void, stepMs = 120) {
  const [cursor, setCursor] = useState<number | null>(null);
  const [playing, setPlaying] = useState(false);
  const onStepRef = useRef(onStep);
  onStepRef.current = onStep;

  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      setCursor((c) => {
        const at = c ?? 0;
        if (at >= events.length) {
          setPlaying(false);
          return at;
        }
        onStepRef.current(events[at]);
        return at + 1;
      });
    }, stepMs);
    return () => clearInterval(timer);
  }, [playing, events, stepMs]);

  const play = useCallback(() => {
    setCursor((c) => (c === null || c >= events.length ? 0 : c));
    setPlaying(true);
  }, [events.length]);

  return {
    cursor,
    playing,
    play,
    pause: useCallback(() => setPlaying(false), []),
    seek: useCallback((i: number) => {
      setPlaying(false);
      setCursor(i);
    }, []),
    exit: useCallback(() => {
      setPlaying(false);
      setCursor(null);
    }, []),
  };
}
