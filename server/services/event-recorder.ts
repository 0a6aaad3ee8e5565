import type { EngineEvent, EngineObserver } from "@/server/graph/events";
import type { EventBus } from "./event-bus";
import type { EventLog, StoredEvent } from "./event-log";

/**
 * Persist, then announce: appends an event to the log and publishes the stored row on the bus once it
 * is durable (the log's group commit), so whatever a subscriber sees survives a crash and can be
 * replayed from the log after a reconnect.
 */
export class EventRecorder {
  constructor(
    private readonly log: EventLog,
    private readonly bus: EventBus,
  ) {}

  record(instanceId: string, version: number, event: EngineEvent): StoredEvent | null {
    let stored: StoredEvent;
    try {
      stored = this.log.append({ instanceId, version, event });
    } catch (error) {
      // Never announce what was not persisted; never break a run because the log failed.
      console.error(`[modex] could not log ${event.type} of ${instanceId}:`, error);
      return null;
    }
    this.log.whenDurable(() => this.bus.publish(stored));
    return stored;
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
