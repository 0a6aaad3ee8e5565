import { isPromise, type Awaitable } from "@/server/graph/awaitable";
import type { EngineEvent, EngineObserver } from "@/server/graph/events";
import type { EventBus } from "./event-bus";
import type { EventLog, StoredEvent } from "./event-log";

/**
 * Persist, then announce: appends an event to the log and publishes the stored row on the bus once it
 * is durable (the log's group commit), so whatever a subscriber sees survives a crash and can be
 * replayed from the log after a reconnect. A log that answers asynchronously keeps the order of the
 * appends (its ids and its promises' resolutions follow the calls), so events are announced in order.
 */
export class EventRecorder {
  constructor(
    private readonly log: EventLog,
    private readonly bus: EventBus,
  ) {}

  record(instanceId: string, version: number, event: EngineEvent): Awaitable<StoredEvent | null> {
    let appended: Awaitable<StoredEvent>;
    try {
      appended = this.log.append({ instanceId, version, event });
    } catch (error) {
      return this.failed(instanceId, event, error);
    }
    if (!isPromise(appended)) return this.announce(appended);
    return appended.then(
      (stored) => this.announce(stored),
      (error: unknown) => this.failed(instanceId, event, error),
    );
  }

  private announce(stored: StoredEvent): StoredEvent {
    this.log.whenDurable(() => this.bus.publish(stored));
    return stored;
  }

  /** Never announce what was not persisted; never break a run because the log failed. */
  private failed(instanceId: string, event: EngineEvent, error: unknown): null {
    console.error(`[modex] could not log ${event.type} of ${instanceId}:`, error);
    return null;
  }

  /** The engine observer of one run. Events without a version belong to the run's current version. */
  observerFor(instanceId: string, version: number): EngineObserver {
    let current = version;
    return {
      onEvent: (event) => {
        // Node events carry the node's invocation version, not the instance's.
        if (event.type === "instance_status" || event.type === "run_started" || event.type === "run_finished") current = event.version;
        this.record(event.instanceId || instanceId, current, event);
      },
    };
  }
}
