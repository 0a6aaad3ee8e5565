import pg from "pg";

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

const AFTER_SQL = `SELECT id, instance_id, version, type, payload, created_at FROM engine_events
  WHERE id > $1 ORDER BY id LIMIT $2`;

/**
 * Ids are taken at insert and committed in any order, so a row with a smaller id can appear after a
 * larger one was read. Each read starts after the highest id below which every id was handed on, but
 * at most this many ids before the highest seen (an id of a rolled-back insert never appears), and
 * skips the ids it already handed on.
 */
const REWIND = 1024;
const PAGE = 1000;

export interface EventListenerOptions {
  url: string;
  /** Hand on only events after this id (default: the newest at start). */
  afterId?: number;
  /** Reconnection delay after the connection drops. Default 200 ms. */
  reconnectMs?: number;
}

/**
 * LISTENs on `modex_events` over its own connection and feeds subscribers every committed engine event,
 * in id order per read. A notification only says "read now": events are always read from the table by
 * id, so after the connection drops (or a notification is lost) the next read, made as soon as it is
 * back, catches up with everything committed meanwhile. Nothing is handed on twice.
 */
export class EventListener {
  private client: pg.Client | null = null;
  private readonly subscribers = new Set<(event: ClusterEvent) => void>();
  private readonly seen = new Set<number>();
  private highest = 0;
  /** Every id up to this one was handed on (or is at or below the floor). */
  private contiguous = 0;
  /** Events up to this id are never handed on (they were before this listener's start). */
  private floor = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** Times the connection was (re)established; for tests and health. */
  connections = 0;

  private constructor(private readonly options: EventListenerOptions) {}

  static async start(options: EventListenerOptions): Promise<EventListener> {
    const listener = new EventListener(options);
    if (options.afterId !== undefined) listener.highest = listener.floor = listener.contiguous = options.afterId;
    await listener.connect(options.afterId === undefined);
    return listener;
  }

  subscribe(fn: (event: ClusterEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  /** The server pid of the LISTEN connection (a test cuts it with pg_terminate_backend). */
  get backendPid(): number | undefined {
    return (this.client as unknown as { processID?: number } | null)?.processID;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
    await this.reading;
  }

  private async connect(fromNewest: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: "modex-events" });
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", () => this.read());
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    if (fromNewest) {
      const { rows } = await client.query<{ id: string | null }>("SELECT max(id) AS id FROM engine_events");
      this.highest = this.floor = this.contiguous = Number(rows[0].id ?? 0);
    }
    this.client = client;
    this.connections++;
    this.read(); // catch up with what was committed before LISTEN took effect
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    const retry = () => {
      if (this.closed) return;
      this.connect(false).catch(() => setTimeout(retry, this.options.reconnectMs ?? 200));
    };
    setTimeout(retry, this.options.reconnectMs ?? 200);
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
    for (;;) {
      const client = this.client;
      if (!client) return;
      let rows: { id: string; instance_id: string; version: number; type: string; payload: unknown; created_at: Date }[];
      try {
        ({ rows } = await client.query({ text: AFTER_SQL, values: [Math.max(this.contiguous, this.highest - REWIND), PAGE] }));
      } catch {
        return; // the connection is gone: the reconnect reads again
      }
      let fresh = 0;
      for (const r of rows) {
        const id = Number(r.id);
        if (this.seen.has(id) || id <= this.floor) continue;
        fresh++;
        this.remember(id);
        const event: ClusterEvent = { id, instanceId: r.instance_id, version: r.version, type: r.type, payload: r.payload, createdAt: r.created_at.getTime() };
        for (const s of this.subscribers) s(event);
      }
      if (rows.length < PAGE || fresh === 0) return;
    }
  }

  private remember(id: number): void {
    this.seen.add(id);
    if (id > this.highest) this.highest = id;
    while (this.seen.has(this.contiguous + 1)) this.contiguous++;
    if (this.seen.size > 4 * REWIND) {
      for (const s of this.seen) if (s <= this.highest - REWIND) this.seen.delete(s);
    }
  }
}
