import type { DeliverStore } from "./deliver-store";
import type { BeginInvocationArgs, NodePlace } from "./node-state-store";
import { deliverRow, readsAs, type DeliverRow, type DeliverStatus, type NewDeliverRow } from "./records";
import { KeyedLists } from "./keyed-lists";
import { Claims } from "./transient-claims";
import { Mailboxes, snapshotOf } from "./transient-mailboxes";

/**
 * The Null coordinator's mailbox: delivers still flow through a ledger with the full status machine,
 * but a row is forgotten once its consumer completes, and nothing is indexed per row.
 *
 * A waiting row is held as its own PENDING snapshot (the engine's rows already read as one), never
 * wrapped: its seq and claimant sit beside it, in lists addressed by the target node's position in
 * its graph. A 10,000-branch fan-out then holds its rows in flight in a few flat arrays it walks in
 * order, where a wrapper object per row and a map entry per target made young garbage collections
 * copy ~50,000 objects and every lookup a cache miss.
 *
 * Listings (recovery, tests) gather the open rows by scanning: fine for a store that keeps none for long.
 */
export class TransientDeliverStore implements DeliverStore {
  /** instanceId → its mailboxes; dropped once nothing waits there. */
  private readonly instances = new Map<string, Mailboxes>();
  /** STAGED rows by source invocation (external rows staged without a source sit under null). */
  private readonly staged = new KeyedLists<string | null, StagedRow>();
  private readonly claims = new Claims();
  /** The mailbox behind the last `consumable` answer: the claim that follows names its rows. */
  private offeredIn: Mailboxes | null = null;
  private offeredAt = -1;
  /** Where the last opened node sits: new mailboxes of its instance are addressed by its graph. */
  private placedInstance: string | null = null;
  private placed: NodePlace | null = null;
  private nextSeq = 0;

  stage(rows: readonly NewDeliverRow[]): void {
    for (let k = 0; k < rows.length; k++) this.staged.add(rows[k].sourceInvocationId, new StagedRow(rows[k], this.nextSeq++));
  }

  appendPending(fields: NewDeliverRow): DeliverRow {
    const row = pendingOf(fields);
    this.enqueue(row, this.nextSeq++);
    return row;
  }

  /**
   * `stage` then `promoteStaged` of one invocation's outbox, for a caller nobody can observe in
   * between (the Null coordinator's completion). Answers with the promoted rows: `rows` itself when
   * each already reads as its PENDING snapshot (the engine's do), so no list is made; either way the
   * answer is the caller's to read, not to change.
   */
  publish(rows: readonly NewDeliverRow[], from: BeginInvocationArgs | null = null): DeliverRow[] {
    if (from !== null && from.outbox === rows && rows.length > 0 && this.fileOutbox(rows as readonly DeliverRow[], from)) return rows as DeliverRow[];
    let copied: DeliverRow[] | null = null;
    for (let k = 0; k < rows.length; k++) {
      const row = pendingOf(rows[k]);
      this.enqueue(row, this.nextSeq++, from, k);
      if (row !== rows[k] && copied === null) copied = rows.slice(0, k) as DeliverRow[];
      if (copied !== null) copied.push(row);
    }
    return copied ?? (rows as DeliverRow[]);
  }

  /**
   * Files an engine-built outbox at the positions its node says, without reading a row: a wide
   * fan-out's rows are out of cache by the time it completes. False, having filed nothing, when
   * the node's graph is not the one this instance's mailboxes are addressed by.
   */
  private fileOutbox(rows: readonly DeliverRow[], from: BeginInvocationArgs): boolean {
    const m = this.mailboxesOf(from.instanceId);
    if (from.binding?.nodeIds !== m.nodeIds) return false;
    for (let k = 0; k < rows.length; k++) m.add(from.targetAt!(k), rows[k], this.nextSeq++);
    return true;
  }

  promoteStaged(sourceInvocationId: string): DeliverRow[] {
    const taken = this.staged.take(sourceInvocationId);
    if (taken === undefined) return [];
    const rows = Array.isArray(taken) ? taken : [taken as StagedRow];
    const out: DeliverRow[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) {
      out[k] = pendingOf(rows[k].fields);
      this.enqueue(out[k], rows[k].seq);
    }
    return out;
  }

  consumable(instanceId: string, targetNodeId: string): DeliverRow[] {
    const m = this.instances.get(instanceId);
    const at = m ? m.find(targetNodeId) : -1;
    if (!m || at === -1) return this.offer(null, -1);
    return this.offer(m, at);
  }

  /**
   * `consumable`, then `markConsumed` of every row it answered, for the Null coordinator's open: the
   * rows as offered (their status before this claim), now claimed by `invocationId`. No ids between.
   * `place` is where the engine says the node sits; trusted only for mailboxes addressed by its graph.
   */
  claimConsumable(instanceId: string, targetNodeId: string, invocationId: string, place?: NodePlace): DeliverRow[] {
    this.offeredIn = null;
    if (place !== undefined) {
      this.placedInstance = instanceId;
      this.placed = place;
    }
    const m = this.instances.get(instanceId);
    if (m === undefined) return NONE;
    const at = place !== undefined && place.nodeIds === m.nodeIds ? place.index : m.find(targetNodeId);
    const waiting = at === -1 ? undefined : m.waiting[at];
    if (!waiting) return NONE;
    let inputs: DeliverRow[];
    const inbox = m.inboxAt(at);
    if (inbox !== null) {
      inputs = inbox.snapshots();
      inbox.claimAll(invocationId);
    } else {
      // Most targets of a wide fan-out wait for one row: answered without a list of rows.
      inputs = [snapshotOf(waiting as DeliverRow, m.claimers[at])];
      m.claimers[at] = invocationId;
    }
    this.claims.add(invocationId, m, at);
    return inputs;
  }

  markConsumed(deliverIds: readonly string[], invocationId: string): void {
    const offeredIn = this.offeredIn;
    const offeredAt = this.offeredAt;
    this.offer(null, -1);
    for (const id of deliverIds) {
      if (offeredIn !== null && offeredIn.claim(offeredAt, id, invocationId)) {
        this.claims.add(invocationId, offeredIn, offeredAt);
        continue;
      }
      for (const m of this.instances.values()) {
        const at = m.claimAnywhere(id, invocationId);
        if (at !== -1) {
          this.claims.add(invocationId, m, at);
          break;
        }
      }
    }
  }

  promoteConsumed(invocationId: string): void {
    const claim = this.claims.take(invocationId);
    if (claim === null) return;
    const { m, at, more } = claim;
    this.complete(m, at, invocationId);
    if (more !== null) for (let k = 0; k < more.length; k++) this.complete(m, more[k], invocationId);
  }

  discardStaged(sourceInvocationIds: readonly string[]): void {
    for (const src of sourceInvocationIds) this.staged.take(src);
  }

  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): DeliverRow[] {
    return this.openRows(instanceId).filter((r) => statuses.includes(r.status));
  }

  /** Completed rows are gone: the open rows are all there is. */
  listByInstance(instanceId: string): DeliverRow[] {
    return this.openRows(instanceId);
  }

  private offer(m: Mailboxes | null, at: number): DeliverRow[] {
    this.offeredIn = m;
    this.offeredAt = at;
    if (m === null) return [];
    const waiting = m.waiting[at];
    if (!waiting) return [];
    const inbox = m.inboxAt(at);
    return inbox !== null ? inbox.snapshots() : [snapshotOf(waiting as DeliverRow, m.claimers[at])];
  }

  /**
   * Holds `row` at its target's mailbox. `from`, the node that delivered it as row `k` of its outbox,
   * may know the target's position: used when it names the same node in the graph these mailboxes
   * are addressed by, so a wide fan-out's rows cost no lookup by id.
   */
  private enqueue(row: DeliverRow, seq: number, from: BeginInvocationArgs | null = null, k = 0): void {
    const m = this.mailboxesOf(row.instanceId);
    const t = from !== null && from.binding?.nodeIds === m.nodeIds ? from.targetAt!(k) : -1;
    m.add(t !== -1 && from!.binding!.nodeIds[t] === row.targetNodeId ? t : m.positionOf(row.targetNodeId), row, seq);
  }

  private mailboxesOf(instanceId: string): Mailboxes {
    let m = this.instances.get(instanceId);
    if (m === undefined) {
      m = new Mailboxes(instanceId, this.placedInstance === instanceId ? this.placed : null);
      this.instances.set(instanceId, m);
    }
    return m;
  }

  /** The row at `at` claimed by `invocationId` leaves; its instance's mailboxes go once all are empty. */
  private complete(m: Mailboxes, at: number, invocationId: string): void {
    if (m.complete(at, invocationId) && m.live === 0 && this.instances.get(m.instanceId) === m) this.instances.delete(m.instanceId);
  }

  private openRows(instanceId: string): DeliverRow[] {
    const found: { seq: number; row: DeliverRow }[] = [];
    this.instances.get(instanceId)?.forEachOpen((row, seq) => found.push({ seq, row }));
    for (const rows of this.staged.lists()) {
      for (const s of rows) if (s.fields.instanceId === instanceId) found.push({ seq: s.seq, row: deliverRow(s.fields, "STAGED", null) });
    }
    return found.sort((a, b) => a.seq - b.seq).map((f) => f.row);
  }
}

/** A STAGED row: the caller's fields and the seq it was staged with. */
class StagedRow {
  constructor(
    readonly fields: NewDeliverRow,
    readonly seq: number,
  ) {}
}

/** No inputs: shared, and frozen so no caller can add to it. */
const NONE = Object.freeze([]) as unknown as DeliverRow[];

/** The row as held: its PENDING snapshot (the engine's rows already are one). */
const pendingOf = (fields: NewDeliverRow): DeliverRow => (readsAs(fields, "PENDING", null) ? fields : deliverRow(fields, "PENDING", null));
