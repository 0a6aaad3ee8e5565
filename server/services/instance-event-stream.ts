import type { EventBus } from "./event-bus";
import type { EventLog, StoredEvent } from "./event-log";
import { liveStream } from "./live-stream";

const PAGE = 500;

/** An instance's events from just after `afterId` (the log, in pages), then live from the bus. */
export function instanceEventStream(args: {
  log: EventLog;
  bus: EventBus;
  instanceId: string;
  afterId?: number;
  signal?: AbortSignal;
}): AsyncGenerator<StoredEvent, void, undefined> {
  const { log, bus, instanceId } = args;
  return liveStream({
    subscribe: (listener) => bus.subscribe(instanceId, listener),
    async *replay(after) {
      for (;;) {
        const page = await log.list(instanceId, { afterId: after, limit: PAGE });
        yield* page;
        if (page.length < PAGE) return;
        after = page[page.length - 1].id;
      }
    },
    keyOf: (e) => e.id,
    after: args.afterId ?? 0,
    signal: args.signal,
  });
}
