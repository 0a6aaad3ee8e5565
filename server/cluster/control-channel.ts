import pg from "pg";
import type { PgQueryable } from "@/server/db/pg/pg-database";

export const CONTROL_CHANNEL = "modex_control";

/** A control message for the worker that runs an instance. */
export type ControlMessage =
  | { kind: "pause" | "stop"; instanceId: string }
  | { kind: "wake"; instanceId: string; node: string }
  /** The instance's breakpoints changed (attrs): a run takes them at once. */
  | { kind: "breakpoints"; instanceId: string };

/** Announces `message` on commit of `tx` (NOTIFY is transactional). */
export async function announceControl(tx: PgQueryable, message: ControlMessage): Promise<void> {
  await tx.query({ text: "SELECT pg_notify($1, $2)", values: [CONTROL_CHANNEL, JSON.stringify(message)] });
}

/**
 * A worker's LISTEN on `modex_control`, reconnecting after a drop. Only for latency: a pause or stop is
 * also stored on the lease and seen at the next heartbeat, and a deliver also enqueues a job, so a
 * message lost while the connection was down delays its effect, never loses it.
 */
export class ControlListener {
  private client: pg.Client | null = null;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly onMessage: (message: ControlMessage) => void,
  ) {}

  static async start(url: string, onMessage: (message: ControlMessage) => void): Promise<ControlListener> {
    const listener = new ControlListener(url, onMessage);
    await listener.connect();
    return listener;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: "modex-control" });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      const retry = () => {
        if (!this.closed) this.connect().catch(() => setTimeout(retry, 500));
      };
      setTimeout(retry, 500);
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (n) => {
      try {
        this.onMessage(JSON.parse(n.payload ?? "") as ControlMessage);
      } catch {
        // not ours
      }
    });
    await client.connect();
    await client.query(`LISTEN ${CONTROL_CHANNEL}`);
    this.client = client;
  }
}
