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
    if (ctx.stateError) {
      // Entered first: a paused instance moves to RUNNING, so it can end FAILED and say why.
      if (!ctx.nested) await settleInstance(ctx, ctx.stateError);
      throw ctx.stateError;
    }
    const seeds = await bootstrap(ctx, this.graph, mode);
    const obs = ctx.observer;
    obs?.onEvent({ type: "run_started", instanceId: ctx.instanceId, version: ctx.version, mode, seeds });
    // The scheduler finishes the instance in the stretch that completed the last node (see OnRunEnd);
    // an error in finishing is not the run's failure, and does not settle the instance again.
    let ending = false;
    const onEnd = (o: SchedulerOutcome) => {
      ending = true;
      if (!ctx.nested) return finishInstance(ctx, o.reachedEnd);
    };
    let outcome;
    try {
      // No seeds: recovery found END already completed in this version; nothing is left to run.
      if (seeds.length === 0) {
        outcome = { reachedEnd: true, iterations: 0 };
        await onEnd(outcome);
      } else {
        outcome = await SCHEDULERS[this.graph.schedulerKind].run(ctx, this.graph, seeds, onEnd);
      }
    } catch (error) {
      if (!ctx.nested && !ending && !ctx.coordinator.abandonsRun(error)) await settleInstance(ctx, error);
      throw error;
    }
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
