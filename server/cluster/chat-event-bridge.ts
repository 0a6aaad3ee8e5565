import type { ChatEvent } from "@/server/services/chat/chat-event";
import type { ChatService } from "@/server/services/chat-service";
import { TableListener, type TableFeed } from "./table-listener";

export const CHAT_EVENTS_CHANNEL = "modex_chat_events";

/** `chat_events` by seq; its insert trigger NOTIFYs `modex_chat_events` at commit. */
export const CHAT_EVENTS_FEED: TableFeed<ChatEvent> = {
  channel: CHAT_EVENTS_CHANNEL,
  applicationName: "modex-chat-events",
  newestSql: "SELECT seq AS key FROM chat_events ORDER BY seq DESC LIMIT $1",
  afterSql: "SELECT seq, body FROM chat_events WHERE seq > $1 ORDER BY seq LIMIT $2",
  toItem: (row) => {
    const seq = Number(row.seq);
    return { key: seq, item: { ...(row.body as Omit<ChatEvent, "seq">), seq } as ChatEvent };
  },
};

/**
 * A web process's chat streams on PostgreSQL: every chat event committed by any process (the one that
 * runs the turn, or this one) is read from `chat_events` on NOTIFY and told to this process's chat
 * subscribers (`ChatService.deliver`), once, and in seq order per chat (a chat's events commit in the
 * order of their numbers, PgChatStore). A viewer's stream replays the store first, then listens
 * (chatEventStream), so nothing is missed or repeated; a dropped LISTEN connection catches up by seq.
 */
export function bridgeChatEvents(url: string, chat: ChatService, options: { reconnectMs?: number } = {}): Promise<TableListener<ChatEvent>> {
  return TableListener.start({ url, feed: CHAT_EVENTS_FEED, reconnectMs: options.reconnectMs }).then((listener) => {
    listener.subscribe((event) => chat.deliver(event));
    return listener;
  });
}
