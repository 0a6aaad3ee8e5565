/**
 * Admits one caller per turn of the event loop. A burst of requests that each hold the server's one
 * thread for a few milliseconds (200 concurrent creates) would otherwise run back to back while other
 * requests (a health check, a page) wait behind all of them: their sockets are read only when the loop
 * reaches its poll phase again. Passing the gate costs a caller one `setImmediate`; waiting callers are
 * admitted in arrival order, one per check phase, so the loop polls for I/O between any two of them.
 *
 * Two lanes: `enter()` for what a client waits on (a create's answer), `later()` for work nobody waits on
 * at once (the runs those creates started). A later caller is admitted only in a turn where no `enter()`
 * caller waits (or, once it has waited `maxDeferMs`, every other turn, so a steady stream of creates never
 * starves it), and
 * while fewer than `maxLater` admitted later callers are busy: many runs in progress at once would each
 * queue work for the same turn, and a health check would wait for all of it. A later caller releases its
 * place when done, or is counted as done after `holdMs` (a run that waits for a model holds no place).
 *
 * It changes when work starts, never what it does: each admitted caller runs as it would without it.
 */
export interface TurnGateOptions {
  maxDeferMs?: number;
  maxLater?: number;
  holdMs?: number;
}

export class TurnGate {
  private readonly waiting: (() => void)[] = [];
  private readonly deferred: { admit: (release: () => void) => void; since: number }[] = [];
  private busy = 0;
  private lastWasLater = false;
  private scheduled = false;
  private readonly maxDeferMs: number;
  private readonly maxLater: number;
  private readonly holdMs: number;

  constructor(options: TurnGateOptions = {}) {
    this.maxDeferMs = options.maxDeferMs ?? 1_000;
    this.maxLater = options.maxLater ?? 2;
    this.holdMs = options.holdMs ?? 250;
  }

  /** Resolves on a later turn of the event loop, after every caller that entered before. */
  enter(): Promise<void> {
    return new Promise((admit) => {
      this.waiting.push(admit);
      this.schedule();
    });
  }

  /** Resolves, in arrival order, with the function that gives the place back once the work is done. */
  later(): Promise<() => void> {
    return new Promise((admit) => {
      this.deferred.push({ admit, since: Date.now() });
      this.schedule();
    });
  }

  /** Callers not yet admitted (both lanes). */
  get queued(): number {
    return this.waiting.length + this.deferred.length;
  }

  private schedule(): void {
    if (this.scheduled || this.queued === 0) return;
    this.scheduled = true;
    setImmediate(this.admitNext);
  }

  private readonly admitNext = (): void => {
    this.scheduled = false;
    const next = this.deferred[0];
    // An overdue later caller takes every other turn (and a place whether one is free or not).
    const overdue = next !== undefined && !this.lastWasLater && Date.now() - next.since >= this.maxDeferMs;
    this.lastWasLater = false;
    if (this.waiting.length > 0 && !overdue) this.waiting.shift()!();
    else if (next && (this.busy < this.maxLater || overdue)) {
      this.lastWasLater = true;
      this.admitLater(this.deferred.shift()!.admit);
    }
    // A later caller waiting for a place is scheduled again by the release that frees one.
    if (this.waiting.length > 0 || (this.deferred.length > 0 && this.busy < this.maxLater)) this.schedule();
  };

  private admitLater(admit: (release: () => void) => void): void {
    this.busy++;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      this.busy--;
      this.schedule();
    };
    const timer = setTimeout(release, this.holdMs);
    timer.unref?.();
    admit(release);
  }
}
