/**
 * Admits one caller per turn of the event loop. A burst of requests that each hold the server's one
 * thread for a few milliseconds (200 concurrent creates) would otherwise run back to back while other
 * requests (a health check, a page) wait behind all of them: their sockets are read only when the loop
 * reaches its poll phase again. Passing the gate costs a caller one `setImmediate`; waiting callers are
 * admitted in arrival order, one per check phase, so the loop polls for I/O between any two of them.
 *
 * It changes when work starts, never what it does: each admitted caller runs as it would without it.
 */
export class TurnGate {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves on a later turn of the event loop, after every caller that entered before. */
  enter(): Promise<void> {
    return new Promise((admit) => {
      this.waiting.push(admit);
      this.schedule();
    });
  }

  /** Callers not yet admitted. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.admitNext);
  }

  private readonly admitNext = (): void => {
    this.scheduled = false;
    this.waiting.shift()?.();
    if (this.waiting.length > 0) this.schedule();
  };
}
