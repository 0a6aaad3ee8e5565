import type { StoredEvent } from "./event-log";
import { KeyedListeners } from "./keyed-listeners";

export type EventListener = (event: StoredEvent) => void;

/**
 * In-process fan-out of logged events, per instance. Only events already in the log are published,
 * so a subscriber that replays the log up to an id and then listens misses nothing. (A later
 * multi-replica deployment swaps this for Postgres LISTEN/NOTIFY behind the same two methods.)
 */
export class EventBus {
  private readonly listeners = new KeyedListeners<StoredEvent>("event");
  private readonly everything = new KeyedListeners<StoredEvent>("event");

  /** Listener errors are contained: one broken subscriber never stops the engine or the others. */
  publish(event: StoredEvent): void {
    this.listeners.publish(event.instanceId, event);
    this.everything.publish("", event);
  }

  /** Every instance's events (outgoing notifications): the listener must return at once, as any here. */
  subscribeAll(listener: EventListener): () => void {
    return this.everything.subscribe("", listener);
  }

  subscribe(instanceId: string, listener: EventListener): () => void {
    return this.listeners.subscribe(instanceId, listener);
  }

  listenerCount(instanceId: string): number {
    return this.listeners.count(instanceId);
  }
}
