/**
 * Per instance, the write in progress: a write started while another of the same instance runs starts
 * once that one has ended, so an instance's writes reach the database in the order they were started,
 * while other instances' writes do not wait. What is kept never rejects: a failure is told to the
 * write's caller (and to `onFailure`), never to the writes after it.
 */
export class InstanceWriteChain {
  private readonly writing = new Map<string, Promise<void>>();

  /**
   * Runs `write` after the instance's write in progress (at once, synchronously, when there is none),
   * as its new write in progress.
   */
  run<T>(instanceId: string, write: () => Promise<T>, onFailure?: (error: unknown) => void): Promise<T> {
    const before = this.writing.get(instanceId);
    const result = before ? before.then(write) : write();
    const kept: Promise<void> = result.then(
      () => undefined,
      (error: unknown) => {
        onFailure?.(error);
      },
    );
    this.writing.set(instanceId, kept);
    void kept.then(() => {
      if (this.writing.get(instanceId) === kept) this.writing.delete(instanceId);
    });
    return result;
  }

  /** The instance's write in progress, if any (it never rejects). */
  inProgress(instanceId: string): Promise<void> | undefined {
    return this.writing.get(instanceId);
  }

  /** Settles once the instance's writes started so far have ended; never rejects. */
  settled(instanceId: string): Promise<void> {
    return this.writing.get(instanceId) ?? RESOLVED;
  }

  /** Settles once every write started so far has ended; never rejects. */
  allSettled(): Promise<void> {
    return this.writing.size === 0 ? RESOLVED : Promise.all(this.writing.values()).then(() => undefined);
  }

  /** The instances with a write in progress. */
  instances(): IterableIterator<string> {
    return this.writing.keys();
  }
}

const RESOLVED = Promise.resolve();
