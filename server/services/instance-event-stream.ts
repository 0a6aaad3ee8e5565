import type { EventBus } from "./event-bus";
import type { EventLog, StoredEvent } from "./event-log";

/**
 * An instance's events from just after `afterId`, then live until `signal` aborts: the log is
 * replayed first (in pages), then the bus feeds new events. The bus subscription starts before the
 * replay and duplicates are dropped by id, so nothing published during the replay is missed.
 */
export async function* instanceEventStream(args: {
  log: EventLog;
  bus: EventBus;
  instanceId: string;
  afterId?: number;
  signal?: AbortSignal;
}): AsyncGenerator<StoredEvent, void, undefined> {
  const { log, bus, instanceId, signal } = args;
  let last = args.afterId ?? 0;
  const queue: StoredEvent[] = [];
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const off = bus.subscribe(instanceId, (e) => {
    queue.push(e);
    notify();
  });
  signal?.addEventListener("abort", notify, { once: true });
  try {
    for (;;) {
      const page = log.list(instanceId, { afterId: last, limit: 500 });
      for (const e of page) {
        if (signal?.aborted) return;
        last = e.id;
        yield e;
      }
      if (page.length < 500) break;
    }
    while (!signal?.aborted) {
      while (queue.length > 0) {
        const e = queue.shift()!;
        if (e.id <= last) continue;
        last = e.id;
        yield e;
        if (signal?.aborted) return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    off();
    signal?.removeEventListener("abort", notify);
  }
}
