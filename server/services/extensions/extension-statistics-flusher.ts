import type { ExtensionCountsDelta, ExtensionManager } from "@/server/agent/extensions/extension-manager";
import type { AgentLogger } from "@/server/agent/logger";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import { addDelta, type ExtensionStatisticsStore } from "./extension-statistics-store";

/** How often a process adds what its extensions counted: what a crash (or kill -9) can lose at most. */
export const STATISTICS_FLUSH_MS = 1_000;

/**
 * Moves this process's extension counts into the shared store, off the hook calls' path: the manager
 * only adds in memory, and every `STATISTICS_FLUSH_MS` (and before a report, and at close) the batch
 * since the last one is added in one commit. Each flush also learns the store's generation: when
 * another process reset the statistics, this one drops what it had not added and zeroes its own
 * counters, so a reset is the whole cluster's within one interval.
 */
export class ExtensionStatisticsFlusher {
  private generation: number | null = null;
  private inFlight: Promise<void> | null = null;
  /** A batch whose add failed (the database out of reach): added with the next. */
  private carried: ExtensionCountsDelta[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly manager: ExtensionManager,
    private readonly store: ExtensionStatisticsStore,
    private readonly logger: AgentLogger,
  ) {}

  start(everyMs: number = STATISTICS_FLUSH_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
  }

  /** Adds what was counted so far; flushes run one at a time (a report's and the timer's). */
  flush(): Awaitable<void> {
    if (this.inFlight) return this.inFlight.then(() => this.flush());
    return this.track(chain(this.knownGeneration(), (generation) => this.addBatch(generation)));
  }

  /** Empties the store's statistics for every process, and this process's counts with them. */
  reset(): Awaitable<void> {
    if (this.inFlight) return this.inFlight.then(() => this.reset());
    return this.track(chain(this.store.reset(), (generation) => this.adopt(generation)));
  }

  /** Stops the timer and adds the last batch (shutdown). */
  close(): Awaitable<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.flush();
  }

  private async tick(): Promise<void> {
    try {
      await this.flush();
    } catch (error) {
      this.logger.error(`[modex] extension statistics not saved (kept for the next try): ${error instanceof Error ? error.message : String(error)}`, {});
    }
  }

  private addBatch(generation: number): Awaitable<void> {
    const batch = merge([...this.carried, ...this.manager.takeUnflushed()]);
    this.carried = [];
    let added: Awaitable<number>;
    try {
      added = this.store.add(batch, generation);
    } catch (error) {
      this.carried = batch;
      throw error;
    }
    const settled = chain(added, (now) => (now === generation ? undefined : this.adopt(now)));
    return isPromise(settled)
      ? settled.catch((error: unknown) => {
          this.carried = merge([...batch, ...this.carried]);
          throw error;
        })
      : settled;
  }

  /** A reset happened (here or elsewhere): what this process counted before it is dropped. */
  private adopt(generation: number): void {
    this.generation = generation;
    this.carried = [];
    this.manager.resetStatistics();
  }

  private knownGeneration(): Awaitable<number> {
    if (this.generation !== null) return this.generation;
    // An empty batch adds nothing and answers the generation: the one this process counts under.
    return chain(this.store.add([], -1), (generation) => (this.generation = generation));
  }

  private track(work: Awaitable<void>): Awaitable<void> {
    if (!isPromise(work)) return work;
    const tracked = work.finally(() => {
      if (this.inFlight === tracked) this.inFlight = null;
    });
    this.inFlight = tracked;
    return tracked;
  }
}

/** One delta per extension: a carried batch and the new one summed. */
function merge(deltas: ExtensionCountsDelta[]): ExtensionCountsDelta[] {
  const byName = new Map<string, ExtensionCountsDelta>();
  for (const d of deltas) {
    const into = byName.get(d.name);
    if (!into) byName.set(d.name, { ...d, counters: { ...d.counters } });
    else addDelta(into, d);
  }
  return [...byName.values()];
}
