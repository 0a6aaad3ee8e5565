import type { StoredEvent } from "./event-log";

export type EventListener = (event: StoredEvent) => void;

/**
 * In-process fan-out of logged events, per instance. Only events already in the log are published,
 * so a subscriber that replays the log up to an id and then listens misses nothing. (A later
 * multi-replica deployment swaps this for Postgres LISTEN/NOTIFY behind the same two methods.)
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<EventListener>>();

  /** Listener errors are contained: one broken subscriber never stops the engine or the others. */
  publish(event: StoredEvent): void {
    const set = this.listeners.get(event.instanceId);
    if (!set) return;
    for (const l of set) {
      try {
        l(event);
      } catch (error) {
        console.error("[modex] event listener failed:", error);
      }
    }
  }

  subscribe(instanceId: string, listener: EventListener): () => void {
    let set = this.listeners.get(instanceId);
    if (!set) this.listeners.set(instanceId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(instanceId) === set) this.listeners.delete(instanceId);
    };
  }

  listenerCount(instanceId: string): number {
    return this.listeners.get(instanceId)?.size ?? 0;
  }
}
