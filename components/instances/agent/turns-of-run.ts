import type { ActivityRow } from "@/components/instances/agent/use-agent-activity";

/** One agent turn as the run's log shows it: its node and whether it has ended. */
export interface RunTurn {
  node: string;
  turnId: string;
  ended: boolean;
}

/**
 * Every agent turn of the run, in the order each first appears in the log. A turn resumed after an
 * approval keeps its id, so it is one turn however many invocations it took.
 */
export function turnsOfRun(rows: readonly ActivityRow[], node?: string): RunTurn[] {
  const byId = new Map<string, RunTurn>();
  for (const { node: n, activity: a } of rows) {
    if (node !== undefined && n !== node) continue;
    const turn = byId.get(a.turnId) ?? { node: n, turnId: a.turnId, ended: false };
    if (a.kind === "turn_ended") turn.ended = true;
    byId.set(a.turnId, turn);
  }
  return [...byId.values()];
}
