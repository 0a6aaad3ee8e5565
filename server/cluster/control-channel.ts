import type { PgQueryable } from "@/server/db/pg/pg-database";
import { ListenConnection } from "./listen-connection";

export const CONTROL_CHANNEL = "modex_control";

/** A control message for the worker that runs an instance. */
export type ControlMessage =
  | { kind: "pause" | "stop"; instanceId: string }
  | { kind: "wake"; instanceId: string; node: string }
  /** The instance's breakpoints changed (attrs): a run takes them at once. */
  | { kind: "breakpoints"; instanceId: string }
  /**
   * Work a web process's reply waits for was enqueued (a resume, an answer, a reinvoke, a recovery):
   * a worker with a free slot fetches now instead of at its next poll (every 0.5 s).
   */
  | { kind: "due"; instanceId: string }
  /**
   * A web process listens for agent nodes' live text again (AgentLiveListener): each worker resends
   * the whole text so far of its calls still streaming (AgentLiveSender.resync).
   */
  | { kind: "live_resync" };

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
  private constructor(private readonly connection: ListenConnection) {}

  static async start(url: string, onMessage: (message: ControlMessage) => void): Promise<ControlListener> {
    const connection = await ListenConnection.start({
      url,
      channels: [CONTROL_CHANNEL],
      applicationName: "modex-control",
      reconnectMs: 500,
      onNotification: (_channel, payload) => {
        try {
          onMessage(JSON.parse(payload) as ControlMessage);
        } catch {
          // not ours
        }
      },
    });
    return new ControlListener(connection);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
