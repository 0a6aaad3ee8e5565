import type { DrainReason } from "./errors";

/**
 * Carries pause/stop requests into the scheduler. Requests are honoured at safe points (before a
 * node instance starts): in-flight nodes finish, no new node starts, progress is persisted, then the
 * scheduler raises `GraphDrained`. Stop outranks pause.
 */
export class GraphRunControl {
  private requested: DrainReason | null = null;
  private readonly listeners = new Set<(reason: DrainReason) => void>();

  get request(): DrainReason | null {
    return this.requested;
  }

  requestPause(): void {
    if (this.requested === null) this.set("pause");
  }

  requestStop(): void {
    if (this.requested !== "stop") this.set("stop");
  }

  /** Clears a request, e.g. before resuming a drained run with the same handle. */
  reset(): void {
    this.requested = null;
  }

  onRequest(listener: (reason: DrainReason) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(reason: DrainReason): void {
    this.requested = reason;
    for (const l of this.listeners) l(reason);
  }
}
