import type pg from "pg";
import { CommittedKeys } from "./committed-keys";
import { ListenConnection } from "./listen-connection";

/** A table of committed rows keyed by a growing number (a sequence), announced on a channel. */
export interface TableFeed<T> {
  /** The channel the table's insert trigger NOTIFYs at commit. */
  channel: string;
  applicationName: string;
  /** `SELECT key AS key FROM … ORDER BY key DESC LIMIT $1`: the newest committed keys, where a listener that hands on only new rows starts. */
  newestSql: string;
  /** Rows with key > $1, ORDER BY key, LIMIT $2. */
  afterSql: string;
  /** A row as handed on, with its key. */
  toItem(row: Record<string, unknown>): { key: number; item: T };
}

/**
 * Keys are taken at insert and committed in any order, so a row with a smaller key can appear after a
 * larger one was read (CommittedKeys): a key passed over is read for again for this many keys and this
 * long (an insert's transaction in flight commits within moments; a rolled-back one never does).
 */
const GAPS = { keys: 1024, ms: 10_000 };
const PAGE = 1000;

export interface TableListenerOptions<T> {
  url: string;
  feed: TableFeed<T>;
  /**
   * Hand on only rows after this key. Default: the rows committed after the start, including those
   * numbered below the newest row then (another writer's transaction in flight at the start).
   */
  afterKey?: number;
  /** Reconnection delay after the connection drops. Default 200 ms. */
  reconnectMs?: number;
}

/**
 * LISTENs on a feed's channel over its own connection and hands subscribers every committed row, in key
 * order per read. A notification only says "read now": rows are always read from the table by key, so
 * after the connection drops (or a notification is lost) the next read, made as soon as it is back,
 * catches up with everything committed meanwhile. Nothing is handed on twice. Rows that commit in the
 * order of their keys (a chat session's events, an instance's events) are handed on in that order; a
 * row whose key was passed over while its insert was in flight is handed on when it commits (within
 * GAPS), at the start as later. A read pages past the rows it already handed on.
 */
export class TableListener<T> {
  private connection!: ListenConnection;
  /** The connection reads go through: the latest one (a read on a dropped one fails, the reconnect reads again). */
  private client: pg.Client | null = null;
  private readonly subscribers = new Set<(item: T) => void>();
  /** What was handed on; set once the start is known (the first connection). */
  private keys = new CommittedKeys(0, GAPS);
  private reading: Promise<void> | null = null;
  private again = false;
  private closed = false;

  private constructor(private readonly options: TableListenerOptions<T>) {}

  static async start<T>(options: TableListenerOptions<T>): Promise<TableListener<T>> {
    const listener = new TableListener(options);
    if (options.afterKey !== undefined) listener.keys = new CommittedKeys(options.afterKey, GAPS);
    listener.connection = await ListenConnection.start({
      url: options.url,
      channels: [options.feed.channel],
      applicationName: options.feed.applicationName,
      reconnectMs: options.reconnectMs,
      onNotification: () => listener.read(),
      onConnected: async (client, first) => {
        if (first && options.afterKey === undefined) {
          const { rows } = await client.query<{ key: string }>({ text: options.feed.newestSql, values: [GAPS.keys] });
          listener.keys = startingAfter(rows.map((r) => Number(r.key)));
        }
        // Only now: a notification that came before the start was known must not read from key 0.
        listener.client = client;
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
    let after = this.keys.readFrom();
    for (;;) {
      const client = this.client;
      if (!client) return;
      let rows: Record<string, unknown>[];
      try {
        ({ rows } = await client.query({ text: feed.afterSql, values: [after, PAGE] }));
      } catch {
        return; // the connection is gone: the reconnect reads again
      }
      for (const row of rows) {
        const { key, item } = feed.toItem(row);
        after = key;
        if (!this.keys.take(key)) continue;
        for (const s of this.subscribers) s(item);
      }
      if (rows.length < PAGE) return;
    }
  }
}

/**
 * The keys of a listener that hands on only the rows committed after its start: `committed` are the
 * newest keys committed before it, newest first. A key below the newest may still commit (an insert
 * in flight now): the floor sits GAPS.keys below the newest, and the keys committed above it count as
 * handed on, so the first reads skip them and hand on the late ones, as keys committed out of order
 * later are. The GAPS.keys newest committed keys are all the committed keys above that floor.
 */
function startingAfter(committed: number[]): CommittedKeys {
  const newest = committed[0] ?? 0;
  const keys = new CommittedKeys(Math.max(0, newest - GAPS.keys), GAPS);
  for (const key of [...committed].reverse()) keys.take(key);
  return keys;
}
