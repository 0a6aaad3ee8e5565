import { TableListener, type TableFeed } from "./table-listener";

/** One stored engine event, as a listener hands it on. */
export interface ClusterEvent {
  id: number;
  instanceId: string;
  version: number;
  type: string;
  payload: unknown;
  createdAt: number;
}

export const EVENTS_CHANNEL = "modex_events";

interface EventRow {
  id: string;
  instance_id: string;
  version: number;
  type: string;
  payload: unknown;
  created_at: Date;
}

/** `engine_events` by id; its insert trigger NOTIFYs `modex_events` at commit (once per statement, no payload). */
export const ENGINE_EVENTS_FEED: TableFeed<ClusterEvent> = {
  channel: EVENTS_CHANNEL,
  applicationName: "modex-events",
  newestSql: "SELECT id AS key FROM engine_events ORDER BY id DESC LIMIT $1",
  afterSql: `SELECT id, instance_id, version, type, payload, created_at FROM engine_events
    WHERE id > $1 ORDER BY id LIMIT $2`,
  toItem: (row) => {
    const r = row as unknown as EventRow;
    const id = Number(r.id);
    return { key: id, item: { id, instanceId: r.instance_id, version: r.version, type: r.type, payload: r.payload, createdAt: r.created_at.getTime() } };
  },
};

export interface EventListenerOptions {
  url: string;
  /** Hand on only events after this id (default: those committed after the start, see TableListener). */
  afterId?: number;
  /** Reconnection delay after the connection drops. Default 200 ms. */
  reconnectMs?: number;
}

/**
 * Every committed engine event, in id order per read, once (see TableListener): a dropped LISTEN
 * connection catches up from the table by id when it is back.
 */
export type EventListener = TableListener<ClusterEvent>;

export const EventListener = {
  start: (options: EventListenerOptions): Promise<EventListener> =>
    TableListener.start({ url: options.url, feed: ENGINE_EVENTS_FEED, afterKey: options.afterId, reconnectMs: options.reconnectMs }),
};
