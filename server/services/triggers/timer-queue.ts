/**
 * Many pending timers on one `setTimeout`: a binary min-heap of due times, the Node timer armed for the
 * earliest only. 10,000 schedules cost one heap entry each (~100 bytes), not 10,000 Node timers, and
 * re-arming after a fire is O(log n). A timer is cancelled lazily (its generation no longer matches).
 */
interface Entry {
  dueAt: number;
  key: string;
  generation: number;
}

// setTimeout takes at most 2^31-1 ms; a later due time is reached by re-arming.
const MAX_DELAY = 2_147_483_647;

export class TimerQueue {
  private readonly heap: Entry[] = [];
  private readonly current = new Map<string, number>();
  private readonly due = new Map<string, number>();
  private generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  private stopped = false;

  constructor(
    private readonly onDue: (key: string, dueAt: number) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.current.size;
  }

  /** When the timer of `key` is due (ms), if it is set. */
  dueAtOf(key: string): number | undefined {
    return this.due.get(key);
  }

  /** Sets (or moves) the timer of `key` to `dueAt` (ms). */
  set(key: string, dueAt: number): void {
    const generation = ++this.generation;
    this.current.set(key, generation);
    this.due.set(key, dueAt);
    this.push({ dueAt, key, generation });
    if (dueAt < this.armedFor) this.arm();
  }

  cancel(key: string): void {
    this.current.delete(key);
    this.due.delete(key);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.dropCancelled();
    const head = this.heap[0];
    this.armedFor = head ? head.dueAt : Infinity;
    if (!head) return;
    this.timer = setTimeout(() => this.fireDue(), Math.min(MAX_DELAY, Math.max(0, head.dueAt - this.now())));
    this.timer.unref?.(); // pending schedules never keep a process (a test, the bench) alive
  }

  private fireDue(): void {
    this.timer = null;
    const now = this.now();
    while (this.heap.length > 0 && this.heap[0].dueAt <= now) {
      const entry = this.pop()!;
      if (this.current.get(entry.key) !== entry.generation) continue;
      this.current.delete(entry.key);
      this.due.delete(entry.key);
      try {
        this.onDue(entry.key, entry.dueAt);
      } catch (error) {
        console.error("[modex] a trigger timer failed:", error);
      }
    }
    this.arm();
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.current.get(this.heap[0].key) !== this.heap[0].generation) this.pop();
  }

  private push(entry: Entry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent].dueAt <= h[i].dueAt) break;
      [h[parent], h[i]] = [h[i], h[parent]];
      i = parent;
    }
  }

  private pop(): Entry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].dueAt < h[m].dueAt) m = l;
        if (r < h.length && h[r].dueAt < h[m].dueAt) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}
