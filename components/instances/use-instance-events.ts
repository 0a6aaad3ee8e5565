"use client";

import { useEffect, useRef, useState } from "react";
import type { StoredEventDto } from "@/components/api/contract";
import { errorCode, errorMessage, useModexClient } from "@/components/api/modex-client";

/**
 * Page size of the backfill. The tRPC `instances.events` may cap it lower (it allowed 1,000 when this
 * was written; the REST route allows 10,000): on BAD_REQUEST the hook falls back to 1,000 and keeps it.
 */
const PAGE = 10_000;
const FALLBACK_PAGE = 1_000;
let pageSize = PAGE;

export interface InstanceEvents {
  /** Every event of the instance, in id order. Replaced (not mutated) when events arrive. */
  events: readonly StoredEventDto[];
  loaded: boolean;
  live: "connecting" | "live" | "closed" | "error";
  error: string | null;
}

/**
 * The instance's event log, then its live tail: pages the log through `instances.events`, then
 * subscribes over SSE from the last id (the server replays anything newer, so nothing falls in the
 * gap). Arrivals are batched into one React update per animation frame; `onLive` sees each live
 * event as it arrives, before that render, so the canvas can start its pulse at once.
 */
export function useInstanceEvents(instanceId: string, onLive: (e: StoredEventDto) => void): InstanceEvents {
  const client = useModexClient();
  const [state, setState] = useState<InstanceEvents>({ events: [], loaded: false, live: "connecting", error: null });
  const onLiveRef = useRef(onLive);
  onLiveRef.current = onLive;

  useEffect(() => {
    let cancelled = false;
    const all: StoredEventDto[] = [];
    let lastId = 0;
    let raf = 0;
    let sub: { unsubscribe(): void } | null = null;
    const publish = () => {
      raf = 0;
      if (!cancelled) setState((s) => ({ ...s, events: all.slice(), loaded: true }));
    };
    const schedule = () => {
      if (!raf) raf = requestAnimationFrame(publish);
    };

    (async () => {
      try {
        for (;;) {
          let page: StoredEventDto[];
          try {
            page = await client.instances.events.query({ instanceId, afterId: lastId, limit: pageSize });
          } catch (e) {
            if (pageSize === FALLBACK_PAGE || errorCode(e) !== "BAD_REQUEST") throw e;
            pageSize = FALLBACK_PAGE;
            continue;
          }
          if (cancelled) return;
          for (const e of page) all.push(e);
          if (page.length > 0) lastId = page[page.length - 1].id;
          if (page.length < pageSize) break;
        }
        publish();
      } catch (e) {
        if (!cancelled) setState((s) => ({ ...s, loaded: true, live: "error", error: errorMessage(e) }));
        return;
      }
      if (cancelled) return;
      sub = client.instances.onEvent.subscribe(
        { instanceId, lastEventId: lastId > 0 ? String(lastId) : null },
        {
          onStarted: () => !cancelled && setState((s) => ({ ...s, live: "live" })),
          onData: (tracked) => {
            const data = (tracked as { data?: StoredEventDto }).data ?? (tracked as unknown as StoredEventDto);
            if (data.id <= lastId) return;
            lastId = data.id;
            all.push(data);
            onLiveRef.current(data);
            schedule();
          },
          onError: (e) => !cancelled && setState((s) => ({ ...s, live: "error", error: errorMessage(e) })),
          onComplete: () => !cancelled && setState((s) => ({ ...s, live: "closed" })),
        },
      );
    })();

    return () => {
      cancelled = true;
      if (raf) cancelAnimationFrame(raf);
      sub?.unsubscribe();
    };
  }, [client, instanceId]);

  return state;
}
