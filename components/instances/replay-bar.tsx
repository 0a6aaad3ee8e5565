"use client";

import { Button } from "@/components/ui/button";

/** Scrub a finished run's timeline, or play it back with its pulses; fork a new run from the position. */
export function ReplayBar({
  count,
  cursor,
  playing,
  onCursor,
  onPlay,
  onPause,
  onExit,
  onFork,
}: {
  count: number;
  cursor: number | null;
  playing: boolean;
  onCursor(i: number): void;
  onPlay(): void;
  onPause(): void;
  onExit(): void;
  /** "Fork from here": a new instance from the replay position (absent when there is none). */
  onFork?: () => void;
}) {
  const value = cursor ?? count;
  return (
    <div data-testid="replay-bar" className="flex items-center gap-3 border-b border-white/10 px-4 py-2">
      <span className="text-xs font-semibold text-zinc-300">Replay</span>
      {playing ? (
        <Button size="sm" onClick={onPause} aria-label="Pause replay">❚❚</Button>
      ) : (
        <Button size="sm" onClick={onPlay} aria-label="Play replay">▶</Button>
      )}
      <input
        type="range"
        aria-label="Replay position"
        min={0}
        max={count}
        value={value}
        onChange={(e) => onCursor(Number(e.target.value))}
        className="h-1 flex-1 accent-indigo-500"
      />
      <span className="w-24 text-right font-mono text-[11px] text-zinc-400">
        {value} / {count}
      </span>
      {cursor !== null && onFork && (
        <Button size="sm" onClick={onFork}>
          Fork from here
        </Button>
      )}
      {cursor !== null && (
        <Button size="sm" variant="ghost" onClick={onExit}>
          Show final state
        </Button>
      )}
    </div>
  );
}
