import type { DeliverStore } from "./deliver-store";
import { KeyedLists } from "./keyed-lists";
import { RowColumns } from "./memory-columns";
import { NodeTable } from "./memory-node-table";
import { DELIVER_STATUSES, type DeliverRow, type DeliverStatus, type NewDeliverRow } from "./records";

/**
 * Rows are numbered from 0 in insertion order (the order every listing answers in) and kept as
 * columns, not objects: a store shared by many runs keeps one row per deliver for good, and a row
 * object (with its boxed time and a map entry by id) cost ~220 bytes where these columns cost ~105,
 * 40 of them the id.
 * Rows are made when asked, so each one handed out is a snapshot nothing changes.
 *
 * Integer fields of `columns`: */
const LEDGER = 0; // the instance ledger's number
const SOURCE = 1; // the source node's number in `nodes`
const TARGET = 2; // the target node's number in `nodes`
const NEXT = 3; // the instance's next row, or NONE
const INTS = 4;
/**
 * Its one time is createdAt; its byte the status, an index in DELIVER_STATUSES or DISCARDED.
 * The other fields, FIELDS apart in `fields`: */
const DELIVER_ID = 0;
const SOURCE_INVOCATION_ID = 1;
const CONTENT = 2;
const CONSUMED_BY = 3;
const FIELDS = 4;

const NONE = -1;
const CODES = Object.fromEntries(DELIVER_STATUSES.map((s, k) => [s, k])) as Record<DeliverStatus, number>;
const STAGED = CODES.STAGED;
const PENDING = CODES.PENDING;
const CONSUMED_PENDING = CODES.CONSUMED_PENDING;
const CONSUMED_COMPLETED = CODES.CONSUMED_COMPLETED;
/** A STAGED row its source never completed: gone from every listing. */
const DISCARDED = DELIVER_STATUSES.length;

/** Row numbers: a lone row as itself, several as a list in insertion order. */
type Rows = number | number[];

/** One instance's rows: a list threaded through NEXT, and the open ones waiting for each target. */
class InstanceLedger {
  first = NONE;
  last = NONE;
  /** No row before it is open (every earlier one is CONSUMED_COMPLETED or discarded), or NONE. */
  openFrom = NONE;
  /** PENDING and CONSUMED_PENDING rows by target node id; null while there are none. */
  waiting: Map<string, Rows> | null = null;

  constructor(
    readonly instanceId: string,
    readonly number: number,
  ) {}
}

/**
 * In-memory ledger, partitioned by instance; keeps every row (the Null coordinator's mailbox, which
 * forgets completed rows, is `TransientDeliverStore`).
 */
export class InMemoryDeliverStore implements DeliverStore {
  private readonly ledgers = new Map<string, InstanceLedger>();
  private readonly byNumber: InstanceLedger[] = [];
  /** The ledger of the last row inserted: a run delivers within one instance. */
  private current: InstanceLedger | null = null;
  /** Ledgers with rows waiting: where a claim by id looks. */
  private readonly open = new Set<InstanceLedger>();
  private readonly nodes = new NodeTable();
  private readonly columns = new RowColumns(INTS, 1);
  private readonly fields: unknown[] = [];
  private count = 0;
  /** STAGED rows by source invocation, until promoted or discarded. */
  private readonly staged = new KeyedLists<string, number>();
  /** CONSUMED_PENDING rows by consumer invocation, until promoted. */
  private readonly claims = new KeyedLists<string, number>();
  /**
   * The rows the last `consumable` answered, in its order: the claim that follows names them, so
   * finding them costs no index by id.
   */
  private offered: Rows | undefined;

  stage(rows: readonly NewDeliverRow[]): void {
    for (let k = 0; k < rows.length; k++) {
      const at = this.insert(rows[k], STAGED);
      const source = rows[k].sourceInvocationId;
      if (source) this.staged.add(source, at);
    }
  }

  appendPending(fields: NewDeliverRow): DeliverRow {
    const at = this.insert(fields, PENDING);
    this.wait(at);
    return this.row(at);
  }

  promoteStaged(sourceInvocationId: string): DeliverRow[] {
    const rows = this.staged.take(sourceInvocationId);
    const out: DeliverRow[] = [];
    if (rows === undefined) return out;
    for (let k = 0, n = count(rows); k < n; k++) {
      const at = nth(rows, k);
      if (this.columns.byte(at) !== STAGED) continue;
      this.columns.setByte(at, PENDING);
      this.wait(at);
      out.push(this.row(at));
    }
    return out;
  }

  consumable(instanceId: string, targetNodeId: string): DeliverRow[] {
    const rows = this.ledgerOf(instanceId)?.waiting?.get(targetNodeId);
    this.offered = rows;
    if (rows === undefined) return [];
    const n = count(rows);
    const out: DeliverRow[] = new Array(n);
    for (let k = 0; k < n; k++) out[k] = this.row(nth(rows, k));
    return out;
  }

  markConsumed(deliverIds: readonly string[], invocationId: string): void {
    const offered = this.offered;
    this.offered = undefined;
    for (let k = 0; k < deliverIds.length; k++) {
      const id = deliverIds[k];
      let at = offered !== undefined && k < count(offered) ? nth(offered, k) : NONE;
      if (at === NONE || this.fields[at * FIELDS + DELIVER_ID] !== id) at = this.findWaiting(id);
      if (at === NONE) continue;
      const status = this.columns.byte(at);
      if (status !== PENDING && status !== CONSUMED_PENDING) continue;
      this.columns.setByte(at, CONSUMED_PENDING);
      this.fields[at * FIELDS + CONSUMED_BY] = invocationId;
      this.claims.add(invocationId, at);
    }
  }

  promoteConsumed(invocationId: string): void {
    const rows = this.claims.take(invocationId);
    if (rows === undefined) return;
    const n = count(rows);
    for (let k = 0; k < n; k++) {
      const at = nth(rows, k);
      if (this.columns.byte(at) !== CONSUMED_PENDING || this.fields[at * FIELDS + CONSUMED_BY] !== invocationId) continue;
      this.columns.setByte(at, CONSUMED_COMPLETED);
    }
    // Every row first, then the lists they waited in: a join's thousand inputs leave its list in one pass.
    for (let k = 0; k < n; k++) this.unwait(nth(rows, k));
  }

  discardStaged(sourceInvocationIds: readonly string[]): void {
    for (const source of sourceInvocationIds) {
      const rows = this.staged.take(source);
      if (rows === undefined) continue;
      for (let k = 0, n = count(rows); k < n; k++) {
        const at = nth(rows, k);
        if (this.columns.byte(at) !== STAGED) continue;
        this.columns.setByte(at, DISCARDED);
        this.fields[at * FIELDS + CONTENT] = undefined;
      }
    }
  }

  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): DeliverRow[] {
    const ledger = this.ledgers.get(instanceId);
    const out: DeliverRow[] = [];
    if (ledger === undefined || statuses.length === 0) return out;
    let wanted = 0;
    for (const s of statuses) wanted |= 1 << CODES[s];
    const from = wanted & (1 << CONSUMED_COMPLETED) ? ledger.first : this.openFrom(ledger);
    for (let at = from; at !== NONE; at = this.columns.int(at, NEXT)) {
      if (wanted & (1 << this.columns.byte(at))) out.push(this.row(at));
    }
    return out;
  }

  listByInstance(instanceId: string): DeliverRow[] {
    const ledger = this.ledgers.get(instanceId);
    const out: DeliverRow[] = [];
    if (ledger === undefined) return out;
    for (let at = ledger.first; at !== NONE; at = this.columns.int(at, NEXT)) {
      if (this.columns.byte(at) !== DISCARDED) out.push(this.row(at));
    }
    return out;
  }

  /** The row as it reads now: a new object, never changed after, in `deliverRow`'s field order. */
  private row(at: number): DeliverRow {
    const f = this.fields;
    const i = at * FIELDS;
    const source = this.columns.int(at, SOURCE);
    const target = this.columns.int(at, TARGET);
    return {
      deliverId: f[i + DELIVER_ID] as string,
      instanceId: this.byNumber[this.columns.int(at, LEDGER)].instanceId,
      sourceNode: this.nodes.nameOf(source),
      sourceNodeId: this.nodes.idOf(source),
      sourceInvocationId: f[i + SOURCE_INVOCATION_ID] as string | null,
      targetNode: this.nodes.nameOf(target),
      targetNodeId: this.nodes.idOf(target),
      content: f[i + CONTENT],
      status: DELIVER_STATUSES[this.columns.byte(at)],
      consumedByInvocationId: f[i + CONSUMED_BY] as string | null,
      createdAt: this.columns.time(at, 0),
    };
  }

  private insert(row: NewDeliverRow, status: number): number {
    const ledger = this.ledgerFor(row.instanceId);
    const at = this.count;
    const c = this.columns;
    c.add(at);
    this.fields.push(row.deliverId, row.sourceInvocationId, row.content, null);
    c.setInt(at, LEDGER, ledger.number);
    c.setInt(at, SOURCE, this.nodes.numberOf(row.sourceNodeId, row.sourceNode));
    c.setInt(at, TARGET, this.nodes.numberOf(row.targetNodeId, row.targetNode));
    c.setInt(at, NEXT, NONE);
    c.setByte(at, status);
    c.setTime(at, 0, row.createdAt);
    if (ledger.last === NONE) ledger.first = at;
    else c.setInt(ledger.last, NEXT, at);
    ledger.last = at;
    if (ledger.openFrom === NONE) ledger.openFrom = at;
    this.count = at + 1;
    return at;
  }

  /** Row `at`, now PENDING, waits for its target: kept in insertion order, though promoted in any. */
  private wait(at: number): void {
    const ledger = this.byNumber[this.columns.int(at, LEDGER)];
    const target = this.nodes.idOf(this.columns.int(at, TARGET));
    let waiting = ledger.waiting;
    if (waiting === null) {
      waiting = ledger.waiting = new Map();
      this.open.add(ledger);
    }
    const rows = waiting.get(target);
    if (rows === undefined) waiting.set(target, at);
    else if (typeof rows === "number") waiting.set(target, rows < at ? [rows, at] : [at, rows]);
    else {
      let k = rows.length;
      while (k > 0 && rows[k - 1] > at) k--;
      rows.splice(k, 0, at);
    }
  }

  /**
   * Row `at` no longer waits if it is CONSUMED_COMPLETED now, nor does any other completed row of its
   * list: rows claimed together leave together, in one pass over their list.
   */
  private unwait(at: number): void {
    if (this.columns.byte(at) !== CONSUMED_COMPLETED) return;
    const ledger = this.byNumber[this.columns.int(at, LEDGER)];
    const waiting = ledger.waiting;
    const target = this.nodes.idOf(this.columns.int(at, TARGET));
    const rows = waiting?.get(target);
    if (rows === undefined) return;
    if (typeof rows !== "number") {
      if (!includes(rows, at)) return;
      let kept = 0;
      for (let k = 0; k < rows.length; k++) if (this.columns.byte(rows[k]) !== CONSUMED_COMPLETED) rows[kept++] = rows[k];
      rows.length = kept;
      if (kept > 0) return;
    } else if (rows !== at) return;
    waiting!.delete(target);
    // Drop an emptied map: a store shared by many runs would otherwise keep one per instance.
    if (waiting!.size === 0) {
      ledger.waiting = null;
      this.open.delete(ledger);
    }
  }

  /** The waiting row `deliverId` names, or NONE: only waiting rows can be claimed. */
  private findWaiting(deliverId: string): number {
    for (const ledger of this.open) {
      for (const rows of ledger.waiting!.values()) {
        for (let k = 0, n = count(rows); k < n; k++) {
          const at = nth(rows, k);
          if (this.fields[at * FIELDS + DELIVER_ID] === deliverId) return at;
        }
      }
    }
    return NONE;
  }

  /** Where the ledger's open rows start: past the closed rows at its head, which stay closed. */
  private openFrom(ledger: InstanceLedger): number {
    let at = ledger.openFrom;
    while (at !== NONE) {
      const status = this.columns.byte(at);
      if (status !== CONSUMED_COMPLETED && status !== DISCARDED) break;
      at = this.columns.int(at, NEXT);
    }
    return (ledger.openFrom = at);
  }

  private ledgerOf(instanceId: string): InstanceLedger | undefined {
    const current = this.current;
    return current !== null && current.instanceId === instanceId ? current : this.ledgers.get(instanceId);
  }

  private ledgerFor(instanceId: string): InstanceLedger {
    let ledger = this.ledgerOf(instanceId);
    if (ledger === undefined) {
      ledger = new InstanceLedger(instanceId, this.byNumber.length);
      this.ledgers.set(instanceId, ledger);
      this.byNumber.push(ledger);
    }
    return (this.current = ledger);
  }
}

/** True when the ascending list `rows` holds `at`. */
function includes(rows: readonly number[], at: number): boolean {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid] === at) return true;
    if (rows[mid] < at) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

const count = (rows: Rows): number => (typeof rows === "number" ? 1 : rows.length);
const nth = (rows: Rows, k: number): number => (typeof rows === "number" ? rows : rows[k]);
