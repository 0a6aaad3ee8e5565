/**
 * Per key (an instance, a chat), the work in progress: work started while another of the same key
 * runs starts once that one has ended, so a key's writes or messages are handled in the order they
 * came, while other keys' do not wait. What is kept never rejects: a failure is told to the caller of
 * `run` (and to `onFailure`), never to the work after it.
 */
export class KeyedChain {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after the key's work in progress (at once, synchronously, when there is none), as its new work in progress. */
  run<T>(key: string, work: () => Promise<T>, onFailure?: (error: unknown) => void): Promise<T> {
    const before = this.tails.get(key);
    const result = before ? before.then(work) : work();
    const tail: Promise<void> = result.then(
      () => undefined,
      (error: unknown) => {
        onFailure?.(error);
      },
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** The key's work in progress, if any (it never rejects). */
  inProgress(key: string): Promise<void> | undefined {
    return this.tails.get(key);
  }

  /** Settles once the key's work started so far has ended; never rejects. */
  settled(key: string): Promise<void> {
    return this.tails.get(key) ?? RESOLVED;
  }

  /** Settles once all work started so far has ended; never rejects. */
  allSettled(): Promise<void> {
    return this.tails.size === 0 ? RESOLVED : Promise.all(this.tails.values()).then(() => undefined);
  }

  /** The keys with work in progress. */
  keys(): IterableIterator<string> {
    return this.tails.keys();
  }
}

const RESOLVED = Promise.resolve();
