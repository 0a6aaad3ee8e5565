import type pg from "pg";
import { ListenConnection } from "./listen-connection";

/** A table of committed rows keyed by a growing number (a sequence), announced on a channel. */
export interface TableFeed<T> {
  /** The channel the table's insert trigger NOTIFYs at commit. */
  channel: string;
  applicationName: string;
  /** `SELECT max(key) AS key FROM …`: where a listener that hands on only new rows starts. */
  maxSql: string;
  /** Rows with key > $1, ORDER BY key, LIMIT $2. */
  afterSql: string;
  /** A row as handed on, with its key. */
  toItem(row: Record<string, unknown>): { key: number; item: T };
}

/**
 * Keys are taken at insert and committed in any order, so a row with a smaller key can appear after a
 * larger one was read. Each read starts after the highest key below which every key was handed on, but
 * at most this many keys before the highest seen (a key of a rolled-back insert never appears), and
 * skips the keys it already handed on.
 */
const REWIND = 1024;
const PAGE = 1000;

export interface TableListenerOptions<T> {
  url: string;
  feed: TableFeed<T>;
  /** Hand on only rows after this key (default: the newest at start). */
  afterKey?: number;
  /** Reconnection delay after the connection drops. Default 200 ms. */
  reconnectMs?: number;
}

/**
 * LISTENs on a feed's channel over its own connection and hands subscribers every committed row, in key
 * order per read. A notification only says "read now": rows are always read from the table by key, so
 * after the connection drops (or a notification is lost) the next read, made as soon as it is back,
 * catches up with everything committed meanwhile. Nothing is handed on twice. Rows that commit in the
 * order of their keys (a chat session's events, an instance's events) are handed on in that order.
 */
export class TableListener<T> {
  private connection!: ListenConnection;
  /** The connection reads go through: the latest one (a read on a dropped one fails, the reconnect reads again). */
  private client: pg.Client | null = null;
  private readonly subscribers = new Set<(item: T) => void>();
  private readonly seen = new Set<number>();
  private highest = 0;
  /** Every key up to this one was handed on (or is at or below the floor). */
  private contiguous = 0;
  /** Rows up to this key are never handed on (they were before this listener's start). */
  private floor = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private closed = false;

  private constructor(private readonly options: TableListenerOptions<T>) {}

  static async start<T>(options: TableListenerOptions<T>): Promise<TableListener<T>> {
    const listener = new TableListener(options);
    if (options.afterKey !== undefined) listener.highest = listener.floor = listener.contiguous = options.afterKey;
    listener.connection = await ListenConnection.start({
      url: options.url,
      channels: [options.feed.channel],
      applicationName: options.feed.applicationName,
      reconnectMs: options.reconnectMs,
      onNotification: () => listener.read(),
      onConnected: async (client, first) => {
        listener.client = client;
        if (first && options.afterKey === undefined) {
          const { rows } = await client.query<{ key: string | null }>(options.feed.maxSql);
          listener.highest = listener.floor = listener.contiguous = Number(rows[0].key ?? 0);
        }
        listener.read(); // catch up with what was committed before LISTEN took effect
      },
    });
    return listener;
  }

  subscribe(fn: (item: T) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  /** Times the connection was (re)established; for tests and health. */
  get connections(): number {
    return this.connection.connections;
  }

  /** The server pid of the LISTEN connection (a test cuts it with pg_terminate_backend). */
  get backendPid(): number | undefined {
    return this.connection.backendPid;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connection.close();
    await this.reading;
  }

  /** Reads from the table; a read asked for while one runs runs once more after it. */
  private read(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readAll().finally(() => {
      this.reading = null;
      if (this.again && !this.closed) {
        this.again = false;
        this.read();
      }
    });
  }

  private async readAll(): Promise<void> {
    const { feed } = this.options;
    for (;;) {
      const client = this.client;
      if (!client) return;
      let rows: Record<string, unknown>[];
      try {
        ({ rows } = await client.query({ text: feed.afterSql, values: [Math.max(this.contiguous, this.highest - REWIND), PAGE] }));
      } catch {
        return; // the connection is gone: the reconnect reads again
      }
      let fresh = 0;
      for (const row of rows) {
        const { key, item } = feed.toItem(row);
        if (this.seen.has(key) || key <= this.floor) continue;
        fresh++;
        this.remember(key);
        for (const s of this.subscribers) s(item);
      }
      if (rows.length < PAGE || fresh === 0) return;
    }
  }

  private remember(key: number): void {
    this.seen.add(key);
    if (key > this.highest) this.highest = key;
    while (this.seen.has(this.contiguous + 1)) this.contiguous++;
    if (this.seen.size > 4 * REWIND) {
      for (const s of this.seen) if (s <= this.highest - REWIND) this.seen.delete(s);
    }
  }
}
