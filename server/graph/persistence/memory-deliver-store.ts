import type { DeliverStore } from "./deliver-store";
import { deliverRow, type DeliverRow, type DeliverStatus, type NewDeliverRow } from "./records";

/**
 * Mutable ledger row; callers only ever see snapshots of it. It holds the delivered fields itself,
 * copied at insertion: a store shared by many runs keeps one per deliver for good, and one object
 * is ~50 bytes less than a row pointing at the caller's fields.
 */
class LedgerRow implements NewDeliverRow {
  readonly deliverId: string;
  readonly instanceId: string;
  readonly sourceNode: string;
  readonly sourceNodeId: string;
  readonly sourceInvocationId: string | null;
  readonly targetNode: string;
  readonly targetNodeId: string;
  readonly content: unknown;
  readonly createdAt: number;
  status: DeliverStatus;
  consumedByInvocationId: string | null = null;
  constructor(
    fields: NewDeliverRow,
    status: DeliverStatus,
    /** Insertion order across the store: the order every listing answers in. */
    readonly seq: number,
  ) {
    this.deliverId = fields.deliverId;
    this.instanceId = fields.instanceId;
    this.sourceNode = fields.sourceNode;
    this.sourceNodeId = fields.sourceNodeId;
    this.sourceInvocationId = fields.sourceInvocationId;
    this.targetNode = fields.targetNode;
    this.targetNodeId = fields.targetNodeId;
    this.content = fields.content;
    this.createdAt = fields.createdAt;
    this.status = status;
  }
  get fields(): NewDeliverRow {
    return this;
  }
  snapshot(): DeliverRow {
    return deliverRow(this, this.status, this.consumedByInvocationId);
  }
}

/** One instance's rows: open ones (not yet CONSUMED_COMPLETED) and the full history. */
class InstanceLedger {
  readonly open = new Set<LedgerRow>();
  readonly history: LedgerRow[] = [];
  readonly consumable = new Map<string, Set<LedgerRow>>();
}

/**
 * In-memory ledger, partitioned by instance; keeps every row (the Null coordinator's mailbox, which
 * forgets completed rows, is `TransientDeliverStore`).
 */
export class InMemoryDeliverStore implements DeliverStore {
  private readonly ledgers = new Map<string, InstanceLedger>();
  private readonly byId = new Map<string, LedgerRow>();
  private readonly bySource = new Map<string, LedgerRow[]>();
  private readonly byConsumer = new Map<string, LedgerRow[]>();
  private nextSeq = 0;

  stage(rows: readonly NewDeliverRow[]): void {
    for (const fields of rows) {
      const row = this.insert(fields, "STAGED");
      if (fields.sourceInvocationId) push(this.bySource, fields.sourceInvocationId, row);
    }
  }

  appendPending(fields: NewDeliverRow): DeliverRow {
    const row = this.insert(fields, "PENDING");
    this.markConsumable(row);
    return row.snapshot();
  }

  promoteStaged(sourceInvocationId: string): DeliverRow[] {
    const rows = this.bySource.get(sourceInvocationId);
    if (!rows) return [];
    this.bySource.delete(sourceInvocationId);
    const out: DeliverRow[] = [];
    for (const row of rows) {
      if (row.status !== "STAGED") continue;
      row.status = "PENDING";
      this.markConsumable(row);
      out.push(row.snapshot());
    }
    return out;
  }

  consumable(instanceId: string, targetNodeId: string): DeliverRow[] {
    const set = this.ledgers.get(instanceId)?.consumable.get(targetNodeId);
    if (!set || set.size === 0) return [];
    // The set is in promotion order; a source that completed late may have staged early. The common,
    // already-ordered case costs no more than a plain copy.
    const out: DeliverRow[] = [];
    let prev = -1;
    for (const row of set) {
      if (row.seq < prev) return [...set].sort((x, y) => x.seq - y.seq).map((r) => r.snapshot());
      prev = row.seq;
      out.push(row.snapshot());
    }
    return out;
  }

  markConsumed(deliverIds: readonly string[], invocationId: string): void {
    for (const id of deliverIds) {
      const row = this.byId.get(id);
      if (!row || (row.status !== "PENDING" && row.status !== "CONSUMED_PENDING")) continue;
      row.status = "CONSUMED_PENDING";
      row.consumedByInvocationId = invocationId;
      push(this.byConsumer, invocationId, row);
    }
  }

  promoteConsumed(invocationId: string): void {
    const rows = this.byConsumer.get(invocationId);
    if (!rows) return;
    this.byConsumer.delete(invocationId);
    for (const row of rows) {
      if (row.status !== "CONSUMED_PENDING" || row.consumedByInvocationId !== invocationId) continue;
      row.status = "CONSUMED_COMPLETED";
      const ledger = this.ledgers.get(row.fields.instanceId)!;
      const waiting = ledger.consumable.get(row.fields.targetNodeId);
      // Drop emptied sets: a 10,000-branch fan-out would otherwise keep 10,000 of them per instance.
      if (waiting?.delete(row) && waiting.size === 0) ledger.consumable.delete(row.fields.targetNodeId);
      ledger.open.delete(row);
    }
  }

  discardStaged(sourceInvocationIds: readonly string[]): void {
    for (const src of sourceInvocationIds) {
      for (const row of this.bySource.get(src) ?? []) {
        if (row.status !== "STAGED") continue;
        const ledger = this.ledgers.get(row.fields.instanceId)!;
        ledger.open.delete(row);
        const at = ledger.history.indexOf(row);
        if (at !== -1) ledger.history.splice(at, 1);
        this.byId.delete(row.fields.deliverId);
      }
      this.bySource.delete(src);
    }
  }

  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): DeliverRow[] {
    const ledger = this.ledgers.get(instanceId);
    if (!ledger) return [];
    const source = statuses.includes("CONSUMED_COMPLETED") ? ledger.history : ledger.open;
    const out: DeliverRow[] = [];
    for (const row of source) if (statuses.includes(row.status)) out.push(row.snapshot());
    return out;
  }

  listByInstance(instanceId: string): DeliverRow[] {
    const ledger = this.ledgers.get(instanceId);
    return ledger ? ledger.history.map((r) => r.snapshot()) : [];
  }

  private insert(fields: NewDeliverRow, status: DeliverStatus): LedgerRow {
    const row = new LedgerRow(fields, status, this.nextSeq++);
    let ledger = this.ledgers.get(fields.instanceId);
    if (!ledger) this.ledgers.set(fields.instanceId, (ledger = new InstanceLedger()));
    ledger.open.add(row);
    ledger.history.push(row);
    this.byId.set(fields.deliverId, row);
    return row;
  }

  private markConsumable(row: LedgerRow): void {
    const ledger = this.ledgers.get(row.fields.instanceId)!;
    let set = ledger.consumable.get(row.fields.targetNodeId);
    if (!set) ledger.consumable.set(row.fields.targetNodeId, (set = new Set()));
    set.add(row);
  }
}

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
