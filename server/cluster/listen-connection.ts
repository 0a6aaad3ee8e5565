import pg from "pg";

export interface ListenConnectionOptions {
  url: string;
  /** The channels to LISTEN on (plain identifiers). */
  channels: readonly string[];
  applicationName: string;
  /** Told each notification, with its channel and payload. */
  onNotification(channel: string, payload: string): void;
  /**
   * Runs after each (re)connection, once LISTEN took effect and `client` is the connection: the place to
   * catch up with what was committed while there was none. `first` is true for the first connection; a
   * throw then fails `start` (later ones are the owner's to report).
   */
  onConnected?(client: pg.Client, first: boolean): Promise<void> | void;
  /** Reconnection delay after the connection drops (and between failed attempts). Default 200 ms. */
  reconnectMs?: number;
}

/**
 * One LISTEN connection that comes back by itself: after a drop (a restart of PostgreSQL, a cut
 * connection) it reconnects every `reconnectMs` until it can LISTEN again, then calls `onConnected`, so
 * its owner catches up with whatever it missed (a notification sent while nobody listened is lost).
 * The engine's event feed, the chats' event feed, the workers' control messages and the definitions'
 * change announcements all listen through it.
 */
export class ListenConnection {
  private current: pg.Client | null = null;
  private closed = false;
  /** Times the connection was (re)established; for tests and health. */
  connections = 0;

  private constructor(private readonly options: ListenConnectionOptions) {}

  static async start(options: ListenConnectionOptions): Promise<ListenConnection> {
    const connection = new ListenConnection(options);
    try {
      await connection.connect(true);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  /** The connection, while it is up (its owner reads through it). */
  get client(): pg.Client | null {
    return this.current;
  }

  /** The server pid of the connection (a test cuts it with pg_terminate_backend). */
  get backendPid(): number | undefined {
    return (this.current as unknown as { processID?: number } | null)?.processID;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.current?.end().catch(() => undefined);
  }

  private async connect(first: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: this.options.applicationName });
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", (n) => this.options.onNotification(n.channel, n.payload ?? ""));
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.current = client;
    this.connections++;
    try {
      await this.options.onConnected?.(client, first);
    } catch (error) {
      if (first) throw error;
    }
  }

  private lost(client: pg.Client): void {
    if (this.current !== client) return;
    this.current = null;
    if (this.closed) return;
    const delay = this.options.reconnectMs ?? 200;
    const retry = () => {
      if (this.closed) return;
      this.connect(false).catch(() => setTimeout(retry, delay));
    };
    setTimeout(retry, delay);
  }
}
