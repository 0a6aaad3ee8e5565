/**
 * Listeners per key (an instance, a chat): what the in-process buses fan out with. A listener's error is
 * logged under `label` and contained: one broken subscriber never stops the publisher or the others.
 */
export class KeyedListeners<T> {
  private readonly listeners = new Map<string, Set<(value: T) => void>>();

  constructor(private readonly label: string) {}

  publish(key: string, value: T): void {
    const set = this.listeners.get(key);
    if (!set) return;
    for (const l of set) {
      try {
        l(value);
      } catch (error) {
        console.error(`[modex] ${this.label} listener failed:`, error);
      }
    }
  }

  subscribe(key: string, listener: (value: T) => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  count(key: string): number {
    return this.listeners.get(key)?.size ?? 0;
  }
}
