import { randomUUID } from "node:crypto";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import type { ChatTurnRelay as ChatTurnRelayPort, RelayedTurnRequest } from "@/server/services/chat-service";
import { ServiceError } from "@/server/services/errors";
import { ListenConnection } from "./listen-connection";

export const CHAT_TURNS_CHANNEL = "modex_chat_turns";
/** How long a caller waits for the owner's answer by default. */
const DEFAULT_TIMEOUT_MS = 5_000;

/** One NOTIFY on `modex_chat_turns`: a request for process `to`, or its answer back to the asker. */
type Envelope =
  | { to: string; id: string; from: string; request: RelayedTurnRequest }
  | { to: string; id: string; answer?: { applied: boolean }; error?: string };

/** Notifies `to` only while its heartbeat is current: no row, no NOTIFY (the owner is dead for the cluster). */
const ASK_SQL = "SELECT pg_notify($1, $2) FROM cluster_processes WHERE process_id = $3 AND expires_at > now()";

/**
 * Stop, STEER and INTERRUPT of a chat turn on a cluster of web processes: the process that got one for
 * a turn another runs (chat_sessions.running_owner) NOTIFYs it on `modex_chat_turns` and waits for its
 * answer there; the owner applies it as if it had been sent to it (ChatService.applyRelayed) and
 * answers. Every process LISTENs through one ListenConnection and keeps what is addressed to it. A
 * message lost with a dropped connection is not retried: the caller's wait times out with
 * PEER_UNAVAILABLE, a truthful answer (the turn was not stopped), and the user may send it again. An
 * owner whose heartbeat expired gets nothing: its turns are ended at once by `onGone` (the reaper's
 * pass), and the caller is told "gone".
 */
export class ChatTurnRelay implements ChatTurnRelayPort {
  private readonly waiting = new Map<string, (answer: { applied: boolean } | Error) => void>();
  private handler: ((request: RelayedTurnRequest) => Promise<{ applied: boolean }>) | null = null;
  private connection: ListenConnection | null = null;

  private constructor(
    private readonly deps: { db: PgQueryable; me: string; onGone: () => Promise<unknown>; timeoutMs: number },
  ) {}

  static async start(args: { url: string; db: PgQueryable; me: string; onGone: () => Promise<unknown>; timeoutMs?: number }): Promise<ChatTurnRelay> {
    const relay = new ChatTurnRelay({ db: args.db, me: args.me, onGone: args.onGone, timeoutMs: args.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    relay.connection = await ListenConnection.start({
      url: args.url,
      channels: [CHAT_TURNS_CHANNEL],
      applicationName: "modex-chat-turns",
      onNotification: (_channel, payload) => relay.received(payload),
    });
    return relay;
  }

  /** What this process does with a request for a turn it runs (its ChatService.applyRelayed). */
  serve(handler: (request: RelayedTurnRequest) => Promise<{ applied: boolean }>): void {
    this.handler = handler;
  }

  async ask(owner: string, request: RelayedTurnRequest): Promise<{ applied: boolean } | "gone"> {
    const id = randomUUID();
    const envelope: Envelope = { to: owner, id, from: this.deps.me, request };
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Waiting before the NOTIFY: the answer may come before the query returns.
    const answered = new Promise<{ applied: boolean } | Error>((resolve) => {
      this.waiting.set(id, resolve);
      timer = setTimeout(() => resolve(new ServiceError("PEER_UNAVAILABLE", `the process running this turn (${owner}) did not answer within ${this.deps.timeoutMs} ms: the turn may still run; try again`)), this.deps.timeoutMs);
    });
    try {
      const { rowCount } = await this.deps.db.query({ text: ASK_SQL, values: [CHAT_TURNS_CHANNEL, JSON.stringify(envelope), owner] });
      if (!rowCount) {
        await this.deps.onGone();
        return "gone";
      }
      const answer = await answered;
      if (answer instanceof Error) throw answer;
      return answer;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  async close(): Promise<void> {
    this.handler = null;
    await this.connection?.close();
  }

  private received(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return; // not ours
    }
    if (envelope.to !== this.deps.me) return;
    if ("request" in envelope) void this.answer(envelope);
    else this.waiting.get(envelope.id)?.(envelope.answer ?? new ServiceError("PEER_UNAVAILABLE", `the process running this turn failed to apply it: ${envelope.error ?? "no answer"}`));
  }

  private async answer(envelope: Extract<Envelope, { request: RelayedTurnRequest }>): Promise<void> {
    let reply: Envelope;
    try {
      if (!this.handler) throw new Error("this process is stopping");
      reply = { to: envelope.from, id: envelope.id, answer: await this.handler(envelope.request) };
    } catch (error) {
      reply = { to: envelope.from, id: envelope.id, error: error instanceof Error ? error.message : String(error) };
    }
    await this.deps.db
      .query({ text: "SELECT pg_notify($1, $2)", values: [CHAT_TURNS_CHANNEL, JSON.stringify(reply)] })
      .catch((error: unknown) => console.error(`[modex] answering a relayed chat turn request failed: ${error instanceof Error ? error.message : String(error)}`));
  }
}
