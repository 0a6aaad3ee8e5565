import type { Mailboxes } from "./transient-mailboxes";

/** What a consumer claimed: positions in one instance's mailboxes. */
export interface Claim {
  m: Mailboxes;
  at: number;
  more: number[] | null;
}

/**
 * Claims by consumer invocation, until promoteConsumed. The synchronous lifecycle claims and
 * completes one consumer at a time, so the latest claim lives in a slot in front of a Map (V8
 * reallocates a small Map's table on nearly every delete).
 */
export class Claims {
  private slotKey: string | null = null;
  private readonly slot: Claim = { m: null as unknown as Mailboxes, at: -1, more: null };
  /** What `take` answers for the slot; read before the next `add`. */
  private readonly taken: Claim = { m: null as unknown as Mailboxes, at: -1, more: null };
  private readonly others = new Map<string, Claim>();

  add(invocationId: string, m: Mailboxes, at: number): void {
    if (this.slotKey === invocationId && this.slot.m === m) {
      if (this.slot.at !== at) (this.slot.more ??= []).push(at);
      return;
    }
    const other = this.others.get(invocationId);
    if (other !== undefined) (other.more ??= []).push(at);
    else if (this.slotKey === null) this.fillSlot(invocationId, m, at);
    else this.others.set(invocationId, { m, at, more: null });
  }

  take(invocationId: string): Claim | null {
    if (this.slotKey === invocationId) {
      this.taken.m = this.slot.m;
      this.taken.at = this.slot.at;
      this.taken.more = this.slot.more;
      this.slotKey = null;
      this.slot.more = null;
      return this.taken;
    }
    const other = this.others.get(invocationId);
    if (other === undefined) return null;
    this.others.delete(invocationId);
    return other;
  }

  private fillSlot(invocationId: string, m: Mailboxes, at: number): void {
    this.slotKey = invocationId;
    this.slot.m = m;
    this.slot.at = at;
    this.slot.more = null;
  }
}
