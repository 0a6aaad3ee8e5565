import { ControlCommandSchema, type ControlCommand, type ControlCommandType } from "./control-command";

export const DEFAULT_CONTROL_TTL_MS = 300_000;

export interface ControlChannel {
  send(command: ControlCommand): void;
  /** Removes and returns the live commands of `types` queued for `sessionId`, oldest first. */
  drain(sessionId: string, types: ReadonlySet<ControlCommandType>): ControlCommand[];
  /**
   * Calls `listener` after each command sent for `sessionId` until the returned function is called: for a
   * consumer that waits on something other than a safe point (a running tool) and must drain at once.
   */
  watch?(sessionId: string, listener: () => void): () => void;
}

export interface InMemoryControlChannelOptions {
  ttlMs?: number;
  /** Clock in epoch ms; injectable so TTL behaviour is tested without waiting. */
  now?: () => number;
}

/**
 * A session-routed queue of control commands. Commands older than the TTL (default 300 s) are dropped
 * unseen: a /stop nobody drained in five minutes must not cancel some later turn. It is not a loop:
 * consumers drain it at their safe points.
 */
export class InMemoryControlChannel implements ControlChannel {
  private readonly queues = new Map<string, ControlCommand[]>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: InMemoryControlChannelOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CONTROL_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  send(command: ControlCommand): void {
    const parsed = ControlCommandSchema.parse(command);
    const queue = this.queues.get(parsed.sessionId) ?? [];
    queue.push({ ...parsed, sentAt: this.now() });
    this.queues.set(parsed.sessionId, queue);
    for (const listener of [...(this.watchers.get(parsed.sessionId) ?? [])]) listener();
  }

  watch(sessionId: string, listener: () => void): () => void {
    const set = this.watchers.get(sessionId) ?? new Set();
    set.add(listener);
    this.watchers.set(sessionId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.watchers.get(sessionId) === set) this.watchers.delete(sessionId);
    };
  }

  drain(sessionId: string, types: ReadonlySet<ControlCommandType>): ControlCommand[] {
    const queue = this.live(sessionId);
    const taken = queue.filter((c) => types.has(c.type));
    const kept = queue.filter((c) => !types.has(c.type));
    this.store(sessionId, kept);
    return taken;
  }

  /** Live commands queued for a session, without removing them. */
  peek(sessionId: string): readonly ControlCommand[] {
    return this.live(sessionId);
  }

  private live(sessionId: string): ControlCommand[] {
    const cutoff = this.now() - this.ttlMs;
    const queue = (this.queues.get(sessionId) ?? []).filter((c) => (c.sentAt ?? 0) > cutoff);
    this.store(sessionId, queue);
    return queue;
  }

  private store(sessionId: string, queue: ControlCommand[]): void {
    if (queue.length === 0) this.queues.delete(sessionId);
    else this.queues.set(sessionId, queue);
  }
}
