"use client";

import { useEffect, useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import type { ChatEventDto } from "@/components/chat/chat-transcript";

export interface ChatEvents {
  events: readonly ChatEventDto[];
  live: "idle" | "connecting" | "live" | "error";
  error: string | null;
}

/**
 * A chat's events, live: the subscription replays the session from the start, then follows it; a
 * reconnect resumes after the last sequence number it saw. Deltas arriving in one frame render once.
 */
export function useChatEvents(sessionId: string | null): ChatEvents {
  const client = useModexClient();
  const [state, setState] = useState<ChatEvents>({ events: [], live: "idle", error: null });

  useEffect(() => {
    if (!sessionId) {
      setState({ events: [], live: "idle", error: null });
      return;
    }
    let cancelled = false;
    let raf = 0;
    let last = 0;
    const all: ChatEventDto[] = [];
    setState({ events: [], live: "connecting", error: null });
    const flush = () => {
      raf = 0;
      if (!cancelled) setState((s) => ({ ...s, events: all.slice() }));
    };
    const sub = client.chat.onEvent.subscribe(
      { sessionId, lastEventId: null },
      {
        onStarted: () => !cancelled && setState((s) => ({ ...s, live: "live" })),
        onData: (tracked) => {
          const e = (tracked as { data?: ChatEventDto }).data ?? (tracked as unknown as ChatEventDto);
          if (e.seq <= last) return;
          last = e.seq;
          all.push(e);
          if (!raf) raf = requestAnimationFrame(flush);
        },
        onError: (e) => !cancelled && setState((s) => ({ ...s, live: "error", error: errorMessage(e) })),
      },
    );
    return () => {
      cancelled = true;
      if (raf) cancelAnimationFrame(raf);
      sub.unsubscribe();
    };
  }, [client, sessionId]);

  return state;
}
