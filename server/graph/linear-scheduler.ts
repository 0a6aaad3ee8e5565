import { isPromise, type Awaitable } from "./awaitable";
import type { CompiledGraph } from "./compiled-graph";
import type { GraphContext } from "./context";
import { GraphDrained, GraphRecursionError } from "./errors";
import { END } from "./names";
import { runNodeLifecycle } from "./node-lifecycle";
import type { DeliverRow } from "./persistence/records";
import type { Scheduler, SchedulerOutcome } from "./scheduler";

/**
 * One node at a time. Dispatched targets queue in order, so the first recorded target runs next.
 * A queued ON_ALL_PREDS node is deferred while another queued node could still reach it.
 */
export class LinearScheduler implements Scheduler {
  run(ctx: GraphContext, graph: CompiledGraph, seeds: readonly string[]): Awaitable<SchedulerOutcome> {
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
    const run = new LinearRun(ctx, graph, queue, queued, dispatch);
    let outcome: Awaitable<SchedulerOutcome>;
    try {
      outcome = run.loop();
    } catch (error) {
      unsubscribe?.();
      throw error;
    }
    if (!isPromise(outcome)) {
      unsubscribe?.();
      return outcome;
    }
    return unsubscribe ? outcome.finally(unsubscribe) : outcome;
  }
}

/**
 * One run's loop. Nodes whose lifecycle returns synchronously run back to back, with no microtask
 * between them; the loop suspends only on a lifecycle that is actually asynchronous. A run whose last
 * node is synchronous thus ends in the stretch that ran it, and the engine finishes the instance there.
 */
class LinearRun {
  private readonly seq = new Map<string, number>();
  private iterations = 0;
  private reachedEnd = false;

  constructor(
    private readonly ctx: GraphContext,
    private readonly graph: CompiledGraph,
    private readonly queue: string[],
    private readonly queued: Set<string>,
    private readonly dispatch: (promoted: readonly DeliverRow[]) => void,
  ) {}

  loop(): Awaitable<SchedulerOutcome> {
    const { ctx, graph, queue } = this;
    while (queue.length > 0) {
      const request = ctx.control?.request;
      if (request) throw new GraphDrained(request);
      const name = queue.length === 1 ? queue.shift()! : takeNext(queue, graph);
      this.queued.delete(name);
      if (++this.iterations > graph.maxIterations) throw new GraphRecursionError(graph.maxIterations);
      const n = this.seq.get(name) ?? 0;
      this.seq.set(name, n + 1);
      const { node, binding } = graph.entry(name);
      const running = runNodeLifecycle({ ctx, node, binding, nodeInstance: `${name}#${n}`, dispatch: this.dispatch });
      if (isPromise(running)) {
        return running.then(() => {
          this.ran(name);
          return this.loop();
        });
      }
      this.ran(name);
    }
    return { reachedEnd: this.reachedEnd, iterations: this.iterations };
  }

  private ran(name: string): void {
    if (name === END) this.reachedEnd = true;
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
