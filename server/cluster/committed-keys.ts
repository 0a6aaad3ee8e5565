/** How long a reader waits for a key it skipped: at most this many keys, and at most this long. */
export interface GapBounds {
  keys: number;
  ms: number;
}

/**
 * The keys of a growing sequence (a table's bigserial) that a reader handed on, when keys commit out of
 * order: a key is taken at insert, so a smaller one commits after a larger one while its transaction is
 * in flight, or never (a rolled-back insert). A key passed over is "missing" and read for again, until
 * it commits, until `bounds.keys` later keys were seen, or until `bounds.ms` passed: then it is taken
 * for rolled back and reads no longer start below it. Keys at or below the floor are never new.
 */
export class CommittedKeys {
  private readonly seen = new Set<number>();
  /** Keys below `highest` not seen yet → when they were first missed; in key order (inserted ascending). */
  private readonly missing = new Map<number, number>();
  private highest: number;

  constructor(
    private readonly floor: number,
    private readonly bounds: GapBounds,
    private readonly now: () => number = Date.now,
  ) {
    this.highest = floor;
  }

  /** Keys missed and still waited for (tests, health). */
  get waitingFor(): number {
    return this.missing.size;
  }

  /**
   * Where the next read starts (rows with a key above this one): below the oldest key still waited
   * for, else after the highest seen. Never moves back, so keys at or below it are forgotten.
   */
  readFrom(): number {
    const now = this.now();
    for (const [key, since] of this.missing) {
      if (key > this.highest - this.bounds.keys && now - since <= this.bounds.ms) break;
      this.missing.delete(key);
    }
    const oldest = this.missing.keys().next();
    const from = oldest.done ? this.highest : oldest.value - 1;
    if (this.seen.size > 2 * this.bounds.keys) for (const key of this.seen) if (key <= from) this.seen.delete(key);
    return from;
  }

  /** True the first time a key above the floor is taken (hand it on); keys it passed over are missed from now. */
  take(key: number): boolean {
    if (key <= this.floor || this.seen.has(key)) return false;
    this.seen.add(key);
    this.missing.delete(key);
    if (key > this.highest) {
      const since = this.now();
      for (let k = Math.max(this.highest + 1, key - this.bounds.keys + 1); k < key; k++) if (!this.seen.has(k)) this.missing.set(k, since);
      this.highest = key;
    }
    return true;
  }
}
