import { randomUUID } from "node:crypto";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import type { ChatTurnRelay as ChatTurnRelayPort, RelayedTurnRequest } from "@/server/services/chat-service";
import { ServiceError } from "@/server/services/errors";
import { ListenConnection } from "./listen-connection";

export const CHAT_TURNS_CHANNEL = "modex_chat_turns";
/** How long a caller waits for the owner's answer by default. */
const DEFAULT_TIMEOUT_MS = 5_000;
/** A request not answered yet is sent again after this long, then twice as long each time, at most every second. */
const FIRST_RESEND_MS = 250;
const MAX_RESEND_MS = 1_000;
/** How long an owner remembers a request it applied (a request sent again is answered, not applied again). */
const REMEMBER_MS = 60_000;

type Answer = { applied: boolean };

/** One NOTIFY on `modex_chat_turns`: a request for process `to`, or its answer back to the asker. */
type Envelope =
  | { to: string; id: string; from: string; request: RelayedTurnRequest }
  | { to: string; id: string; answer?: Answer; error?: string };
type RequestEnvelope = Extract<Envelope, { request: RelayedTurnRequest }>;

/** Notifies `to` only while its heartbeat is current: no row, no NOTIFY (the owner is dead for the cluster). */
const ASK_SQL = "SELECT pg_notify($1, $2) FROM cluster_processes WHERE process_id = $3 AND expires_at > now()";

/** A request of this process waiting for its answer. */
interface Pending {
  envelope: RequestEnvelope;
  settle(outcome: Answer | "gone" | Error): void;
}

/**
 * Stop, STEER and INTERRUPT of a chat turn on a cluster of web processes: the process that got one for
 * a turn another runs (chat_sessions.running_owner) NOTIFYs it on `modex_chat_turns` and waits for its
 * answer there; the owner applies it as if it had been sent to it (ChatService.applyRelayed) and
 * answers. Every process LISTENs through one ListenConnection and keeps what is addressed to it.
 *
 * A NOTIFY reaches only the connections listening when it commits: a request or an answer sent while
 * the owner's or the asker's LISTEN connection reconnects is lost. So a request not answered is sent
 * again (after 250 ms, then twice as long each time, at most every second, and at once when this
 * process's own connection is back), under the same id; the owner applies each id once and answers a
 * repeat with the answer it gave (or, while it still applies it, with that answer when it comes). After
 * `timeoutMs` with no answer the caller gets PEER_UNAVAILABLE, a truthful answer (the turn may still
 * run), and the user may send it again. An owner whose heartbeat expired gets nothing: its turns are
 * ended at once by `onGone` (the reaper's pass), and the caller is told "gone".
 */
export class ChatTurnRelay implements ChatTurnRelayPort {
  private readonly waiting = new Map<string, Pending>();
  /** Requests this process applied or applies, by id, oldest first: a repeat is answered from here. */
  private readonly answered = new Map<string, { at: number; reply: Promise<Envelope> }>();
  private handler: ((request: RelayedTurnRequest) => Promise<Answer>) | null = null;
  private connection: ListenConnection | null = null;

  private constructor(
    private readonly deps: { db: PgQueryable; me: string; onGone: () => Promise<unknown>; timeoutMs: number },
  ) {}

  static async start(args: { url: string; db: PgQueryable; me: string; onGone: () => Promise<unknown>; timeoutMs?: number; reconnectMs?: number }): Promise<ChatTurnRelay> {
    const relay = new ChatTurnRelay({ db: args.db, me: args.me, onGone: args.onGone, timeoutMs: args.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    relay.connection = await ListenConnection.start({
      url: args.url,
      channels: [CHAT_TURNS_CHANNEL],
      applicationName: "modex-chat-turns",
      reconnectMs: args.reconnectMs,
      onNotification: (_channel, payload) => relay.received(payload),
      // Answers sent while this process did not listen are lost: ask again at once.
      onConnected: (_client, first) => {
        if (!first) for (const pending of relay.waiting.values()) void relay.send(pending);
      },
    });
    return relay;
  }

  /** What this process does with a request for a turn it runs (its ChatService.applyRelayed). */
  serve(handler: (request: RelayedTurnRequest) => Promise<Answer>): void {
    this.handler = handler;
  }

  /** The server pid of the LISTEN connection (a test cuts it with pg_terminate_backend). */
  get backendPid(): number | undefined {
    return this.connection?.backendPid;
  }

  async ask(owner: string, request: RelayedTurnRequest): Promise<Answer | "gone"> {
    const envelope: RequestEnvelope = { to: owner, id: randomUUID(), from: this.deps.me, request };
    const { timeoutMs } = this.deps;
    let attempts = 0;
    let resend: ReturnType<typeof setTimeout> | undefined;
    let deadline: ReturnType<typeof setTimeout> | undefined;
    let lastError: unknown = null;
    // Waiting before the NOTIFY: the answer may come before the query returns.
    const outcome = new Promise<Answer | "gone" | Error>((resolve) => {
      const pending: Pending = { envelope, settle: resolve };
      this.waiting.set(envelope.id, pending);
      const sendAgain = (delay: number) => {
        resend = setTimeout(() => {
          attempts++;
          void this.send(pending).then((error) => (lastError = error ?? lastError));
          sendAgain(Math.min(delay * 2, MAX_RESEND_MS));
        }, delay);
      };
      deadline = setTimeout(() => {
        const cause = lastError ? ` (last send failed: ${lastError instanceof Error ? lastError.message : String(lastError)})` : "";
        resolve(new ServiceError("PEER_UNAVAILABLE", `the process running this turn (${owner}) did not answer within ${timeoutMs} ms (asked ${attempts} times)${cause}: the turn may still run; try again`));
      }, timeoutMs);
      attempts++;
      void this.send(pending).then((error) => (lastError = error ?? lastError));
      sendAgain(FIRST_RESEND_MS);
    });
    try {
      const answer = await outcome;
      if (answer instanceof Error) throw answer;
      return answer;
    } finally {
      clearTimeout(resend);
      clearTimeout(deadline);
      this.waiting.delete(envelope.id);
    }
  }

  async close(): Promise<void> {
    this.handler = null;
    await this.connection?.close();
  }

  /**
   * NOTIFYs the owner of `pending` (again). A NOTIFY the owner's expired heartbeat stopped settles it
   * "gone" (its turns are ended first); a failed query is answered (the next attempt may succeed).
   */
  private async send(pending: Pending): Promise<unknown> {
    const { envelope } = pending;
    try {
      const { rowCount } = await this.deps.db.query({ text: ASK_SQL, values: [CHAT_TURNS_CHANNEL, JSON.stringify(envelope), envelope.to] });
      if (rowCount || !this.waiting.has(envelope.id)) return null;
      await this.deps.onGone();
      pending.settle("gone");
      return null;
    } catch (error) {
      return error;
    }
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
    else this.waiting.get(envelope.id)?.settle(envelope.answer ?? new ServiceError("PEER_UNAVAILABLE", `the process running this turn failed to apply it: ${envelope.error ?? "no answer"}`));
  }

  /** Applies a request once per id; a repeat gets the same answer (sent again once it is ready). */
  private async answer(envelope: RequestEnvelope): Promise<void> {
    const now = Date.now();
    for (const [id, { at }] of this.answered) {
      if (now - at < REMEMBER_MS) break;
      this.answered.delete(id);
    }
    let known = this.answered.get(envelope.id);
    if (!known) {
      known = { at: now, reply: this.apply(envelope) };
      this.answered.set(envelope.id, known);
    }
    const reply = await known.reply;
    await this.deps.db
      .query({ text: "SELECT pg_notify($1, $2)", values: [CHAT_TURNS_CHANNEL, JSON.stringify(reply)] })
      .catch((error: unknown) => console.error(`[modex] answering a relayed chat turn request failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  private async apply(envelope: RequestEnvelope): Promise<Envelope> {
    try {
      if (!this.handler) throw new Error("this process is stopping");
      return { to: envelope.from, id: envelope.id, answer: await this.handler(envelope.request) };
    } catch (error) {
      return { to: envelope.from, id: envelope.id, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
