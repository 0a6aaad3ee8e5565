import type { Awaitable } from "./awaitable";
import type { GraphContext } from "./context";
import type { CompiledGraph } from "./compiled-graph";
import { START } from "./names";

export type SchedulerKind = "linear" | "parallel";

export interface SchedulerOutcome {
  reachedEnd: boolean;
  iterations: number;
}

/**
 * Called once when a run ends normally, with its outcome, in the synchronous stretch that completed
 * its last node instance (no microtask between them), before `run` resolves: the engine finishes the
 * instance there, and a durable store commits the last completion and the final status at once. Its
 * error rejects `run`. Not called when the run throws.
 */
export type OnRunEnd = (outcome: SchedulerOutcome) => Awaitable<void>;

/**
 * Drives node instances from the seed nodes until nothing is ready or running. Between node
 * instances it yields to pending microtasks, as awaiting each one would.
 */
export interface Scheduler {
  run(ctx: GraphContext, graph: CompiledGraph, seeds: readonly string[], onEnd: OnRunEnd): Promise<SchedulerOutcome>;
}

/**
 * A resumed run's entry node (a resume target set) is not a safe point: it is the resume itself (it
 * hands the resume value to the node that waits for it, in the ledger). A pause or stop asked before
 * it is honoured right after it, so the value is kept for the run that goes on later.
 */
export function deliversResume(ctx: GraphContext, next: string | undefined): boolean {
  return next === START && !!ctx.state.resumeTarget;
}
