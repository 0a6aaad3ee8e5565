/**
 * The messages of each chat sent to this process, handled one at a time in the order they arrived. A
 * message's handling may wait (its turn's claim of the chat on PostgreSQL, a relayed STEER or
 * INTERRUPT): the next one waits for it, so it is decided against the chat as the first left it, never
 * against a turn whose claim is still on its way and may lose.
 */
export class InputOrder {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `handle` after every message of `chatId` given before it was handled (answered or failed). */
  run<T>(chatId: string, handle: () => Promise<T>): Promise<T> {
    const before = this.tails.get(chatId);
    const result = before ? before.then(handle) : handle();
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(chatId, tail);
    void tail.then(() => {
      if (this.tails.get(chatId) === tail) this.tails.delete(chatId);
    });
    return result;
  }
}
