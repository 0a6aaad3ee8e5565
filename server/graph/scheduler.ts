import type { Awaitable } from "./awaitable";
import type { GraphContext } from "./context";
import type { CompiledGraph } from "./compiled-graph";

export type SchedulerKind = "linear" | "parallel";

export interface SchedulerOutcome {
  reachedEnd: boolean;
  iterations: number;
}

/** Drives node instances from the seed nodes until nothing is ready or running. */
export interface Scheduler {
  /** Returns synchronously when every node it ran did (see `runNodeLifecycle`); may also throw. */
  run(ctx: GraphContext, graph: CompiledGraph, seeds: readonly string[]): Awaitable<SchedulerOutcome>;
}
