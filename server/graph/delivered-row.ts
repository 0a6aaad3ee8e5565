import type { DeliverRow } from "./persistence/records";

/**
 * The clock reading rows delivered in one millisecond share. A row's time as a number field of its
 * own would be a heap number of its own: an object per row that every young collection during a
 * wide fan-out copies (10,000 rows in flight).
 */
class Stamp {
  constructor(readonly ms: number) {}
}

let current = new Stamp(0);

/** The shared stamp for `ms` (the time of the latest deliver, as rows are delivered in time order). */
function stampOf(ms: number): Stamp {
  if (current.ms !== ms) current = new Stamp(ms);
  return current;
}

/**
 * A row as `NodeContext.deliver` builds it: already the PENDING snapshot it reads as once promoted,
 * its time read from the stamp it shares with the rows delivered in the same millisecond. Its own
 * fields are the record's but `createdAt`; `toJSON` gives the plain record.
 */
export class DeliveredRow implements DeliverRow {
  readonly status = "PENDING" as const;
  readonly consumedByInvocationId = null;
  readonly #stamp: Stamp;

  constructor(
    readonly deliverId: string,
    readonly instanceId: string,
    readonly sourceNode: string,
    readonly sourceNodeId: string,
    readonly sourceInvocationId: string | null,
    readonly targetNode: string,
    readonly targetNodeId: string,
    readonly content: unknown,
    createdAt: number,
  ) {
    this.#stamp = stampOf(createdAt);
  }

  get createdAt(): number {
    return this.#stamp.ms;
  }

  toJSON(): DeliverRow {
    return { ...this, createdAt: this.createdAt };
  }
}
