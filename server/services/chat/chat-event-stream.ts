import { liveStream } from "../live-stream";
import type { ChatEvent } from "./chat-event";

/** What a chat's event stream reads: replay, live events, and the chat's deletion (ChatService). */
export interface ChatEventSource {
  events(sessionId: string, afterSeq: number): Promise<ChatEvent[]>;
  subscribe(sessionId: string, listener: (e: ChatEvent) => void): () => void;
  onRemoved(sessionId: string, listener: () => void): () => void;
}

/**
 * A session's events after `afterSeq`, then live until `signal` aborts, or until the chat is deleted
 * (nothing more will come: the stream ends rather than waiting forever).
 */
export async function* chatEventStream(chat: ChatEventSource, sessionId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
  const ended = new AbortController();
  const end = () => ended.abort();
  const offRemoved = chat.onRemoved(sessionId, end);
  signal?.addEventListener("abort", end, { once: true });
  if (signal?.aborted) end();
  try {
    yield* liveStream({
      subscribe: (listener) => chat.subscribe(sessionId, listener),
      replay: (after) => chat.events(sessionId, after),
      keyOf: (e) => e.seq,
      after: afterSeq,
      signal: ended.signal,
    });
  } finally {
    offRemoved();
    signal?.removeEventListener("abort", end);
  }
}
