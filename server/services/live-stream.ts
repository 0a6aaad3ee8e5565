import type { Awaitable } from "@/server/graph/awaitable";

/**
 * Past events after `after`, then live ones until `signal` aborts. The subscription starts before the
 * replay and duplicates are dropped by key (increasing numbers), so nothing published during the
 * replay is missed or repeated. The event log's SSE stream and the chat's both use it.
 */
export async function* liveStream<T>(args: {
  subscribe(listener: (e: T) => void): () => void;
  /** Past events after `after`: an iterable, an async one, or a promise of one (a store answering asynchronously). */
  replay(after: number): Awaitable<Iterable<T>> | AsyncIterable<T>;
  keyOf(e: T): number;
  after: number;
  signal?: AbortSignal;
}): AsyncGenerator<T, void, undefined> {
  const { signal, keyOf } = args;
  let last = args.after;
  const queue: T[] = [];
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const off = args.subscribe((e) => {
    queue.push(e);
    notify();
  });
  signal?.addEventListener("abort", notify, { once: true });
  try {
    for await (const e of await args.replay(last)) {
      if (signal?.aborted) return;
      last = keyOf(e);
      yield e;
    }
    while (!signal?.aborted) {
      while (queue.length > 0) {
        const e = queue.shift()!;
        if (keyOf(e) <= last) continue;
        last = keyOf(e);
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
