import { isPromise } from "./awaitable";
import { bootstrap } from "./bootstrap";
import type { CompiledGraph } from "./compiled-graph";
import type { BootstrapMode, GraphContext } from "./context";
import { enterInstance, finishInstance, settleInstance } from "./instance-lifecycle";
import { LinearScheduler } from "./linear-scheduler";
import { ParallelScheduler } from "./parallel-scheduler";
import type { GraphPayload } from "./payload";
import type { Scheduler, SchedulerOutcome } from "./scheduler";

export interface RunResult {
  instanceId: string;
  version: number;
  /** COMPLETED when something reached END, otherwise FAILED (a dead end). */
  status: "completed" | "failed";
  reachedEnd: boolean;
  iterations: number;
  result: readonly GraphPayload[];
}

const SCHEDULERS: Record<CompiledGraph["schedulerKind"], Scheduler> = {
  linear: new LinearScheduler(),
  parallel: new ParallelScheduler(),
};

/**
 * A thin delegator: bootstraps the run, hands it to the graph's scheduler, and keeps the instance's
 * status machine in step. Control signals (interrupt, drained) and node errors propagate verbatim.
 */
export class GraphEngine {
  constructor(private readonly graph: CompiledGraph) {}

  async run(ctx: GraphContext, mode: BootstrapMode = ctx.mode): Promise<RunResult> {
    ctx.mode = mode;
    if (!ctx.nested) await enterInstance(ctx, this.graph);
    const seeds = await bootstrap(ctx, this.graph, mode);
    const obs = ctx.observer;
    obs?.onEvent({ type: "run_started", instanceId: ctx.instanceId, version: ctx.version, mode, seeds });
    let outcome: SchedulerOutcome;
    try {
      // No seeds: recovery found END already completed in this version; nothing is left to run.
      const running = seeds.length === 0 ? { reachedEnd: true, iterations: 0 } : SCHEDULERS[this.graph.schedulerKind].run(ctx, this.graph, seeds);
      // Not awaited when the scheduler ended synchronously: the instance is then finished (or settled)
      // in the stretch that ran the last node, and a durable store commits both at once.
      outcome = isPromise(running) ? await running : running;
    } catch (error) {
      if (!ctx.nested) await settleInstance(ctx, error);
      throw error;
    }
    if (!ctx.nested) await finishInstance(ctx, outcome.reachedEnd);
    obs?.onEvent({ type: "run_finished", instanceId: ctx.instanceId, version: ctx.version, ...outcome });
    return {
      instanceId: ctx.instanceId,
      version: ctx.version,
      status: outcome.reachedEnd ? "completed" : "failed",
      reachedEnd: outcome.reachedEnd,
      iterations: outcome.iterations,
      result: ctx.state.result,
    };
  }
}
