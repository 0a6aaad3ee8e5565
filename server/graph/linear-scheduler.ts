import { isPromise } from "./awaitable";
import type { CompiledGraph } from "./compiled-graph";
import type { GraphContext } from "./context";
import { GraphDrained, GraphRecursionError } from "./errors";
import { END, START } from "./names";
import { runNodeLifecycle } from "./node-lifecycle";
import type { DeliverRow } from "./persistence/records";
import { deliversResume, type OnRunEnd, type Scheduler, type SchedulerOutcome } from "./scheduler";

/**
 * One node at a time. Dispatched targets queue in order, so the first recorded target runs next.
 * A queued ON_ALL_PREDS node is deferred while another queued node could still reach it.
 */
export class LinearScheduler implements Scheduler {
  async run(ctx: GraphContext, graph: CompiledGraph, seeds: readonly string[], onEnd: OnRunEnd): Promise<SchedulerOutcome> {
    const queue = [...new Set(seeds)];
    const queued = new Set(queue);
    const wake = (t: string) => {
      if (!queued.has(t)) {
        queued.add(t);
        queue.push(t);
      }
    };
    const dispatch = (promoted: readonly DeliverRow[]) => {
      for (let k = 0; k < promoted.length; k++) wake(promoted[k].targetNode);
    };

    const unsubscribe = ctx.control?.onWake((node) => graph.topology.has(node) && wake(node));
    try {
      return await this.loop(ctx, graph, { queue, queued, dispatch, onEnd });
    } finally {
      unsubscribe?.();
    }
  }

  private async loop(
    ctx: GraphContext,
    graph: CompiledGraph,
    {
      queue,
      queued,
      dispatch,
      onEnd,
    }: { queue: string[]; queued: Set<string>; dispatch: (promoted: readonly DeliverRow[]) => void; onEnd: OnRunEnd },
  ): Promise<SchedulerOutcome> {
    const seq = new Map<string, number>();
    const lifecycle = { ctx, layout: graph.layout, dispatch };
    let iterations = 0;
    let reachedEnd = false;
    while (queue.length > 0) {
      const request = ctx.control?.request;
      if (request && !deliversResume(ctx, queue[0])) throw new GraphDrained(request);
      const name = queue.length === 1 ? queue.shift()! : takeNext(queue, graph);
      const control = ctx.control;
      // A subgraph's run (nested) never holds: its node is one step of the enclosing run, and
      // breakpoints name the enclosing graph's nodes (an inner node of the same name is another node).
      if (control !== undefined && control.holds && !ctx.nested && name !== START && name !== END && control.holdBefore(name)) {
        throw new GraphDrained("pause");
      }
      queued.delete(name);
      if (++iterations > graph.maxIterations) throw new GraphRecursionError(graph.maxIterations);
      const n = seq.get(name) ?? 0;
      seq.set(name, n + 1);
      const running = runNodeLifecycle(lifecycle, graph.topology.index.get(name)!, n);
      // A synchronous last node: the run ends in its stretch (see OnRunEnd). Otherwise one yield per
      // node, as before.
      if (isPromise(running) || queue.length > 0) await running;
      if (name === END) reachedEnd = true;
    }
    const outcome = { reachedEnd, iterations };
    const ending = onEnd(outcome);
    if (isPromise(ending)) await ending;
    return outcome;
  }
}

/** The first queued node that no other queued node could still reach (or the head, on a cycle). */
function takeNext(queue: string[], graph: CompiledGraph): string {
  for (let i = 0; i < queue.length; i++) {
    const name = queue[i];
    if (graph.triggerModeOf(name) === "ON_ALL_PREDS" && queue.some((o, j) => j !== i && graph.topology.reaches(o, name))) {
      continue;
    }
    return queue.splice(i, 1)[0];
  }
  return queue.shift()!;
}

