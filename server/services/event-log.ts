import type { Awaitable } from "@/server/graph/awaitable";
import type { EngineEvent } from "@/server/graph/events";

/** An engine event as the log keeps it: `id` is increasing per database, the SSE resume point. */
export interface StoredEvent {
  readonly id: number;
  readonly instanceId: string;
  readonly version: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly event: EngineEvent;
}

export interface ListEventsArgs {
  /** Only events with a greater id (a reconnecting client's last seen id). */
  afterId?: number;
  limit?: number;
}

export interface AppendEventArgs {
  instanceId: string;
  version: number;
  event: EngineEvent;
  at?: number;
}

/**
 * The append-only event log of every instance: its timeline, and what a reconnecting client replays.
 * The engine's observer appends inline, so an event is persisted before anyone can see it (see
 * ARCHITECTURE.md, "persisted before announced"). The in-memory and SQLite logs answer synchronously
 * (SQLite's append joins the engine's group commit); a network database's `append` resolves once the
 * row is committed, and ids follow the order of the `append` calls.
 */
export interface EventLog {
  append(args: AppendEventArgs): Awaitable<StoredEvent>;
  /** Runs `fn` once everything appended so far is durable (at once when it already is), in append order. */
  whenDurable(fn: () => void): void;
  list(instanceId: string, args?: ListEventsArgs): Awaitable<StoredEvent[]>;
  /** One version's events from position `offset` (0-based, id order): the timeline's rows. */
  listVersion(instanceId: string, args: ListVersionArgs): Awaitable<StoredEvent[]>;
}

export interface ListVersionArgs {
  version: number;
  offset: number;
  limit: number;
}

export const DEFAULT_EVENT_PAGE = 1000;

export class InMemoryEventLog implements EventLog {
  private readonly events: StoredEvent[] = [];
  private nextId = 1;

  append(args: AppendEventArgs): StoredEvent {
    const stored: StoredEvent = { id: this.nextId++, instanceId: args.instanceId, version: args.version, at: args.at ?? Date.now(), event: args.event };
    this.events.push(stored);
    return stored;
  }

  whenDurable(fn: () => void): void {
    fn();
  }

  list(instanceId: string, args: ListEventsArgs = {}): StoredEvent[] {
    const after = args.afterId ?? 0;
    const limit = args.limit ?? DEFAULT_EVENT_PAGE;
    const out: StoredEvent[] = [];
    for (const e of this.events) {
      if (e.instanceId === instanceId && e.id > after) out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  listVersion(instanceId: string, args: ListVersionArgs): StoredEvent[] {
    return this.events.filter((e) => e.instanceId === instanceId && e.version === args.version).slice(args.offset, args.offset + args.limit);
  }
}
