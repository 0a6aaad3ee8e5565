import type { EventListener } from "@/server/services/event-bus";

/** The web process's live feed of logged events (its EventBus, fed by LISTEN: bridgeClusterEvents). */
export interface LiveEvents {
  subscribe(instanceId: string, listener: EventListener): () => void;
}

/**
 * Wakes a reply that waits for a run's start (ClusterGraphControl.afterStart) when a `run_started` of the
 * instance arrives on the live feed, instead of it polling the event log every few milliseconds. Only a
 * hint: the waiter still reads the log to decide (the run must be the one its command made due), and
 * still reads it now and then without a wake, as NOTIFY carries no promise of delivery. Latched: a start
 * that arrives between two reads wakes the next wait at once. Subscribe before the first read.
 */
export class RunStartSignal implements Disposable {
  private woken = false;
  private wake: (() => void) | null = null;
  private readonly off: () => void;

  constructor(events: LiveEvents, instanceId: string) {
    this.off = events.subscribe(instanceId, (e) => {
      if (e.event.type !== "run_started") return;
      this.woken = true;
      this.wake?.();
    });
  }

  /** Resolves at the next run_started (at once if one came since the last call), or after `ms`. */
  async next(ms: number): Promise<void> {
    if (!this.woken) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        this.wake = done;
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.wake = null;
    }
    this.woken = false;
  }

  [Symbol.dispose](): void {
    this.off();
    this.wake?.();
  }
}
