import { ZERO_USAGE } from "@/server/agent/llm/token-usage";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import { KeyedListeners } from "@/server/services/keyed-listeners";
import type { ChatEvent, ChatEventBody } from "./chat-event";
import type { ChatStore, NewChatEvent } from "./chat-store";
import type { TurnPricing } from "./chat-types";
import type { LiveSession } from "./live-session";

/**
 * Publishes a chat's events: stores each (the store numbers it) and tells subscribers once it is
 * committed. Events published inside `atomically` are held until that write commits. On a cluster,
 * subscribers hear every process's events from the feed (ChatService.deliver) instead.
 */
export class ChatPublisher {
  /** A subscriber's error is contained: it never reaches the turn that published, nor other subscribers. */
  private readonly listeners = new KeyedListeners<ChatEvent>("chat event");
  /** Events published inside a `store.write`, told to subscribers once it committed. */
  private held: ChatEvent[] | null = null;

  constructor(
    private readonly options: {
      store: ChatStore;
      /** A process of a cluster: its own events reach subscribers through the feed, not from here. */
      cluster: boolean;
      pricing?: TurnPricing;
      /** The model the agent `agent` calls (to price its turns); null when unknown. */
      modelOf: (agent: string | null) => string | null;
      now: () => number;
    },
  ) {}

  /** Stores the event (the store numbers it) and tells subscribers once it is committed. */
  publish(live: LiveSession, turnId: string, body: ChatEventBody, at = this.options.now()): void {
    if (live.deleted) return;
    this.told(this.options.store.appendEvent({ ...this.priced(live, body), sessionId: live.row.sessionId, turnId, at } as NewChatEvent));
  }

  /** As `publish`, if `turnId` is the chat's running turn as stored when it is written (else nothing). */
  publishWhileRunning(live: LiveSession, turnId: string, body: ChatEventBody): void {
    if (live.deleted) return;
    this.told(this.options.store.appendWhileRunning({ ...body, sessionId: live.row.sessionId, turnId, at: this.options.now() } as NewChatEvent));
  }

  /** Runs `write` as one committed transaction; its events reach subscribers after the commit. */
  atomically(write: () => void): Awaitable<void> {
    if (this.held) return write();
    const held: ChatEvent[] = (this.held = []);
    let done: Awaitable<void>;
    try {
      done = this.options.store.write(write);
    } finally {
      this.held = null;
    }
    return chain(done, () => {
      for (const event of held) this.tell(event);
    });
  }

  /** Tells `listener` the chat's events once committed. */
  subscribe(sessionId: string, listener: (e: ChatEvent) => void): () => void {
    return this.listeners.subscribe(sessionId, listener);
  }

  /** Tells the chat's subscribers a committed event. */
  notify(event: ChatEvent): void {
    this.listeners.publish(event.sessionId, event);
  }

  /** Tells subscribers an event once it is committed (null: none was stored). */
  private told(stored: Awaitable<ChatEvent | null>): void {
    // A promise resolves once the event is committed (with the `write` it belongs to, if any).
    if (isPromise(stored)) stored.then((event) => event && this.tell(event), (error: unknown) => lostWrite(error));
    else if (!stored) return;
    else if (this.held) this.held.push(stored);
    else this.options.store.afterCommit(() => this.tell(stored));
  }

  /** A finished turn with what its tokens cost on its agent's model, when the price table has it. */
  private priced(live: LiveSession, body: ChatEventBody): ChatEventBody {
    const pricing = this.options.pricing;
    if (body.type !== "turn_completed" || !pricing?.currency || body.tokens === 0) return body;
    const usage = { ...ZERO_USAGE, inputTokens: body.inputTokens ?? 0, outputTokens: body.outputTokens ?? 0 };
    const cost = pricing.costOf(this.options.modelOf(live.row.agent), usage);
    return cost === null ? body : { ...body, cost, currency: pricing.currency };
  }

  /** An event of this process, committed. On a cluster, subscribers hear it from the feed, in order with other processes' events. */
  private tell(event: ChatEvent): void {
    if (!this.options.cluster) this.notify(event);
  }
}

/** A write nobody waits for (the next `committed()` does): a failure is logged, not left unhandled. */
export function detach(write: Awaitable<unknown>): void {
  if (isPromise(write)) write.catch(lostWrite);
}

/** A write that failed with nobody waiting for it: the chat goes on from what is in memory. */
export function lostWrite(error: unknown): void {
  console.error(`[modex] a chat write failed: ${describe(error)}`);
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
