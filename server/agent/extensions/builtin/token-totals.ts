/** A value now, or later: SQLite and memory answer at once, PostgreSQL with a promise. */
type Answer<T> = T | Promise<T>;

/**
 * Where `token_budget` keeps each instance's (graph run's or chat session's) token total. The app gives
 * one on its database, so a restart or another worker continues the same total; the default is this
 * process's memory. `add` must be atomic: two workers running nodes of one instance add to one total.
 */
export interface TokenTotals {
  /** The scope's total so far (0 when none). */
  get(scope: string): Answer<number>;
  /** Adds `tokens` to the scope's total. */
  add(scope: string, tokens: number): Answer<void>;
  /** The scope ended (a chat session deleted): its total is let go. */
  forget(scope: string): Answer<void>;
}

/**
 * Instances whose totals are kept in memory. A graph run never ends a session (SESSION_DESTROY is a
 * chat's), so without a bound every run ever made would keep its entry: the least recently active is
 * dropped first.
 */
export const MAX_TRACKED_INSTANCES = 10_000;

/** This process's totals, the newest MAX_TRACKED_INSTANCES (a Map iterates in insertion order). */
export class InMemoryTokenTotals implements TokenTotals {
  private readonly totals = new Map<string, number>();

  get(scope: string): number {
    return this.totals.get(scope) ?? 0;
  }

  add(scope: string, tokens: number): void {
    const total = this.get(scope) + tokens;
    this.totals.delete(scope);
    this.totals.set(scope, total);
    if (this.totals.size > MAX_TRACKED_INSTANCES) this.totals.delete(this.totals.keys().next().value!);
  }

  forget(scope: string): void {
    this.totals.delete(scope);
  }

  /** How many scopes it keeps (tests: the bound). */
  get size(): number {
    return this.totals.size;
  }
}
