import type { DeliverStore } from "./deliver-store";
import type { DeliverRow, DeliverStatus, NewDeliverRow } from "./records";

/**
 * A row in flight. `view` caches its snapshot until the row changes, so the promoted row and the
 * consumer's read of it are one object. A change replaces the view, never mutates it: an answer
 * given earlier keeps the status it had.
 */
class MailRow {
  status: DeliverStatus;
  consumedBy: string | null = null;
  view: DeliverRow | null = null;
  constructor(
    readonly fields: NewDeliverRow,
    status: DeliverStatus,
    /** Insertion order across the store: the order every listing answers in. */
    readonly seq: number,
  ) {
    this.status = status;
  }
  set(status: DeliverStatus, consumedBy: string | null): void {
    this.status = status;
    this.consumedBy = consumedBy;
    this.view = null;
  }
  snapshot(): DeliverRow {
    if (this.view) return this.view;
    const f = this.fields;
    return (this.view = {
      deliverId: f.deliverId,
      instanceId: f.instanceId,
      sourceNode: f.sourceNode,
      sourceNodeId: f.sourceNodeId,
      sourceInvocationId: f.sourceInvocationId,
      targetNode: f.targetNode,
      targetNodeId: f.targetNodeId,
      content: f.content,
      status: this.status,
      consumedByInvocationId: this.consumedBy,
      createdAt: f.createdAt,
    });
  }
}

/** Consumable rows of one target node, in arrival order. Completed rows leave lazily. */
class Inbox {
  rows: MailRow[] = [];
  live = 0;
}

/**
 * The Null coordinator's mailbox: delivers still flow through a ledger with the full status machine,
 * but a row is forgotten once its consumer completes, and nothing is indexed per row. Rows sit in one
 * array per target node (what `consumable` reads) or per staging source (what `promoteStaged` reads);
 * there is no id index, no open-row set, no history. A 10,000-branch fan-out then costs an array slot
 * per row instead of entries in four hash tables that grow, rehash and shrink on every run.
 *
 * Listings (recovery, tests) gather the open rows by scanning: fine for a store that keeps none for long.
 */
export class TransientDeliverStore implements DeliverStore {
  /** instanceId → targetNodeId → inbox. */
  private readonly inboxes = new Map<string, Map<string, Inbox>>();
  /** STAGED rows by source invocation (external rows staged without a source sit under null). */
  private readonly staged = new Map<string | null, MailRow[]>();
  /** Claimed rows by consumer invocation, until promoteConsumed. */
  private readonly claims = new Map<string, MailRow[]>();
  /** The rows behind the last `consumable` answer: the claim that follows names exactly these. */
  private offered: MailRow[] = [];
  private nextSeq = 0;

  stage(rows: readonly NewDeliverRow[]): void {
    for (const fields of rows) {
      const row = new MailRow(fields, "STAGED", this.nextSeq++);
      const src = fields.sourceInvocationId;
      const list = this.staged.get(src);
      if (list) list.push(row);
      else this.staged.set(src, [row]);
    }
  }

  appendPending(fields: NewDeliverRow): DeliverRow {
    const row = new MailRow(fields, "PENDING", this.nextSeq++);
    this.enqueue(row);
    return row.snapshot();
  }

  promoteStaged(sourceInvocationId: string): DeliverRow[] {
    const rows = this.staged.get(sourceInvocationId);
    if (!rows) return [];
    this.staged.delete(sourceInvocationId);
    const out: DeliverRow[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k];
      row.set("PENDING", null);
      this.enqueue(row);
      out[k] = row.snapshot();
    }
    return out;
  }

  consumable(instanceId: string, targetNodeId: string): DeliverRow[] {
    const inbox = this.inboxes.get(instanceId)?.get(targetNodeId);
    if (!inbox) {
      this.offered = [];
      return [];
    }
    const rows = inbox.live === inbox.rows.length ? inbox.rows.slice() : inbox.rows.filter(isOpen);
    // Rows arrive in promotion order; a source that completed late may have staged early.
    if (!inSeqOrder(rows)) rows.sort(bySeq);
    this.offered = rows;
    const out: DeliverRow[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = rows[k].snapshot();
    return out;
  }

  markConsumed(deliverIds: readonly string[], invocationId: string): void {
    const rows = this.locate(deliverIds);
    this.offered = [];
    let claimed = this.claims.get(invocationId);
    for (const row of rows) {
      if (row.status !== "PENDING" && row.status !== "CONSUMED_PENDING") continue;
      row.set("CONSUMED_PENDING", invocationId);
      if (claimed) claimed.push(row);
      else this.claims.set(invocationId, (claimed = [row]));
    }
  }

  promoteConsumed(invocationId: string): void {
    const rows = this.claims.get(invocationId);
    if (!rows) return;
    this.claims.delete(invocationId);
    for (const row of rows) {
      if (row.status !== "CONSUMED_PENDING" || row.consumedBy !== invocationId) continue;
      row.set("CONSUMED_COMPLETED", invocationId);
      this.leaveInbox(row);
    }
  }

  discardStaged(sourceInvocationIds: readonly string[]): void {
    for (const src of sourceInvocationIds) this.staged.delete(src);
  }

  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): DeliverRow[] {
    return this.openRows(instanceId)
      .filter((r) => statuses.includes(r.status))
      .map((r) => r.snapshot());
  }

  /** Completed rows are gone: the open rows are all there is. */
  listByInstance(instanceId: string): DeliverRow[] {
    return this.openRows(instanceId).map((r) => r.snapshot());
  }

  private enqueue(row: MailRow): void {
    const { instanceId, targetNodeId } = row.fields;
    let targets = this.inboxes.get(instanceId);
    if (!targets) this.inboxes.set(instanceId, (targets = new Map()));
    let inbox = targets.get(targetNodeId);
    if (!inbox) targets.set(targetNodeId, (inbox = new Inbox()));
    inbox.rows.push(row);
    inbox.live++;
  }

  private leaveInbox(row: MailRow): void {
    const { instanceId, targetNodeId } = row.fields;
    const targets = this.inboxes.get(instanceId);
    const inbox = targets?.get(targetNodeId);
    if (!targets || !inbox) return;
    // Drop emptied inboxes: a 10,000-branch fan-out would otherwise keep 10,000 of them per instance.
    if (--inbox.live === 0) {
      targets.delete(targetNodeId);
      if (targets.size === 0) this.inboxes.delete(instanceId);
    } else if (inbox.rows.length > 2 * inbox.live + 8) {
      inbox.rows = inbox.rows.filter(isOpen);
    }
  }

  /** The rows `deliverIds` name: the last offered ones when they match, else found by scanning. */
  private locate(deliverIds: readonly string[]): MailRow[] {
    const offered = this.offered;
    if (offered.length === deliverIds.length && offered.every((r, k) => r.fields.deliverId === deliverIds[k])) return offered;
    const wanted = new Set(deliverIds);
    const found: MailRow[] = [];
    for (const targets of this.inboxes.values()) {
      for (const inbox of targets.values()) for (const row of inbox.rows) if (isOpen(row) && wanted.has(row.fields.deliverId)) found.push(row);
    }
    return found;
  }

  private openRows(instanceId: string): MailRow[] {
    const out: MailRow[] = [];
    for (const inbox of this.inboxes.get(instanceId)?.values() ?? []) for (const row of inbox.rows) if (isOpen(row)) out.push(row);
    for (const rows of this.staged.values()) for (const row of rows) if (row.fields.instanceId === instanceId) out.push(row);
    return out.sort(bySeq);
  }
}

const isOpen = (row: MailRow): boolean => row.status !== "CONSUMED_COMPLETED";
const bySeq = (a: MailRow, b: MailRow): number => a.seq - b.seq;

function inSeqOrder(rows: readonly MailRow[]): boolean {
  for (let k = 1; k < rows.length; k++) if (rows[k].seq < rows[k - 1].seq) return false;
  return true;
}
