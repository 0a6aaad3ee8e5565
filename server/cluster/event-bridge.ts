import type { EngineEvent } from "@/server/graph/events";
import type { EventBus } from "@/server/services/event-bus";
import { EventListener } from "./event-listener";

/**
 * A web process's live events on PostgreSQL: every engine event committed by any process (a worker's
 * run, another web process's command) is read from `engine_events` on NOTIFY and published on this
 * process's EventBus, which feeds its SSE viewers (they replay the log first, then listen, so nothing is
 * missed or repeated). A dropped LISTEN connection catches up by id when it is back.
 */
export async function bridgeClusterEvents(url: string, bus: EventBus): Promise<EventListener> {
  const listener = await EventListener.start({ url });
  listener.subscribe((e) => bus.publish({ id: e.id, instanceId: e.instanceId, version: e.version, at: e.createdAt, event: e.payload as EngineEvent }));
  return listener;
}
