"use client";

import { TurnTraceLink } from "@/components/instances/agent/turn-trace-link";
import type { RunTurn } from "@/components/instances/agent/turns-of-run";

/**
 * The run's agent turns, each with its trace, while no node is selected: a finished run's way to what
 * its agents did (model calls, tool calls, tokens) without finding the node first.
 */
export function RunTurnLinks({ instanceId, turns }: { instanceId: string; turns: readonly RunTurn[] }) {
  const seen = new Map<string, number>();
  return (
    <section aria-label="Agent turns" data-testid="run-turns" className="px-4 py-2">
      <p className="text-xs text-zinc-500">Click an agent node to watch its turns, or open a turn&apos;s trace:</p>
      <ol className="mt-1.5 space-y-0.5">
        {turns.map((t) => {
          const n = (seen.get(t.node) ?? 0) + 1;
          seen.set(t.node, n);
          return (
            <li key={t.turnId} data-testid="run-turn" className="flex items-baseline justify-between gap-2 text-xs text-zinc-300">
              <span>
                <span className="font-mono">{t.node}</span> · turn {n}
                {t.ended ? "" : <span className="text-zinc-500"> · not ended</span>}
              </span>
              <TurnTraceLink instanceId={instanceId} node={t.node} turnId={t.turnId} />
            </li>
          );
        })}
      </ol>
    </section>
  );
}
