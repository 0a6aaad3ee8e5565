/**
 * The typed custom map on the turn state. Hooks are shared across every session a pool serves, so any
 * per-turn state a hook needs lives here, keyed by a `TurnCustomKey<T>` that fixes the value's type —
 * never in hook instance fields, which would grow for the pool's lifetime with no cleanup path.
 */
export class TurnCustomKey<T> {
  /** Phantom: ties the key to its value type; never read at run time. */
  declare readonly __value?: T;
  constructor(readonly name: string) {}
}

export class TurnCustomMap {
  private readonly values = new Map<string, unknown>();

  get<T>(key: TurnCustomKey<T>): T | undefined {
    return this.values.get(key.name) as T | undefined;
  }

  /** The stored value, or `init()` stored and returned when the key is absent. */
  getOrInit<T>(key: TurnCustomKey<T>, init: () => T): T {
    if (!this.values.has(key.name)) this.values.set(key.name, init());
    return this.values.get(key.name) as T;
  }

  set<T>(key: TurnCustomKey<T>, value: T): void {
    this.values.set(key.name, value);
  }

  has(key: TurnCustomKey<unknown>): boolean {
    return this.values.has(key.name);
  }

  /** Remove and return: the one-shot read the continuation gate uses. */
  pop<T>(key: TurnCustomKey<T>): T | undefined {
    const value = this.values.get(key.name) as T | undefined;
    this.values.delete(key.name);
    return value;
  }

  delete(key: TurnCustomKey<unknown>): void {
    this.values.delete(key.name);
  }

  /** A plain copy for snapshots (TurnSnapshot persists it; values must be JSON-serialisable there). */
  toJSON(): Record<string, unknown> {
    return Object.fromEntries(this.values);
  }

  static fromJSON(data: Record<string, unknown>): TurnCustomMap {
    const map = new TurnCustomMap();
    for (const [name, value] of Object.entries(data)) map.values.set(name, value);
    return map;
  }
}
