/**
 * A growable list of int32 values over one typed array. Clearing keeps the capacity, and a list made
 * with the size it will need never grows: the scheduler's per-run queues of a 10,000-branch fan-out
 * cost one array each, where number arrays grown by push leave each of their smaller copies behind.
 */
export class IntList {
  private data: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.data = new Int32Array(Math.max(8, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = value;
  }

  at(k: number): number {
    return this.data[k];
  }

  set(k: number, value: number): void {
    this.data[k] = value;
  }

  clear(): void {
    this.length = 0;
  }

  /** Removes the first `n` values; the rest move to the front. */
  dropFirst(n: number): void {
    this.data.copyWithin(0, n, this.length);
    this.length -= n;
  }

  private grow(): void {
    const next = new Int32Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }
}
