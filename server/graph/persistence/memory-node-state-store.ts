import { InvocationStateError } from "../errors";
import { newSnowflake } from "../ids";
import type { BeginInvocationArgs, NodePlace, NodeStateStore } from "./node-state-store";
import { RowColumns } from "./memory-columns";
import { NodeTable } from "./memory-node-table";
import { INVOCATION_STATUSES, type InvocationStatus, type NodeInvocation } from "./records";

/**
 * Invocations are numbered from 0 in begin order and kept as columns, not objects: a store shared
 * by 300 chain runs keeps 30,600 for good, and a record object per invocation (with boxed times, a
 * map entry by id and one per node of its instance) cost ~255 bytes where these columns cost ~100,
 * 40 of them the id.
 * Records are made when asked, so each one handed out is a snapshot nothing changes.
 *
 * Integer fields of `columns`: */
const INSTANCE = 0; // the instance's number
const NODE = 1; // the node's number in `nodes`
const VERSION = 2;
const PARENT = 3; // parentVersion, 0 for null (versions start at 1)
const PREV = 4; // the same node's previous version in the instance, or NONE
const NEXT = 5; // the instance's next invocation, or NONE
const INTS = 6;
/** Its times; its byte is the status, an index in INVOCATION_STATUSES. */
const STARTED_AT = 0;
const ENDED_AT = 1; // NaN for null
const TIMES = 2;

const NONE = -1;
const CODES = Object.fromEntries(INVOCATION_STATUSES.map((s, k) => [s, k])) as Record<InvocationStatus, number>;
const RUNNING = CODES.RUNNING;
const COMPLETED = CODES.COMPLETED;

/** One instance's invocations: a list threaded through NEXT, and the latest version of each node. */
class InstanceInvocations {
  first = NONE;
  last = NONE;
  running = 0;
  /**
   * The latest invocation of each node of the graph `place` belongs to (its `nodeIds` list stands for
   * that graph), by position: the graph of the instance's first begin, when the engine said where its
   * node sits. A plain array with holes, not a typed one: made per instance, and a typed array costs
   * ten times as much to make.
   */
  private readonly heads: (number | undefined)[] | null;
  private readonly nodeIds: readonly string[] | null;
  /** The latest invocation of nodes outside that graph, by node id. */
  private others: Map<string, number> | null = null;

  constructor(
    readonly instanceId: string,
    readonly number: number,
    private readonly place: NodePlace | null,
  ) {
    this.nodeIds = place?.nodeIds ?? null;
    this.heads = this.nodeIds === null ? null : new Array(this.nodeIds.length);
  }

  /**
   * Where the latest invocation of `nodeId` is kept: a position in `heads`, or -1 for `others`. The
   * graph's id-to-position map is asked only for a node whose begin did not say where it sits.
   */
  slotOf(nodeId: string, args?: BeginInvocationArgs): number {
    const at = args?.binding;
    if (at !== undefined && at.nodeIds === this.nodeIds && at.nodeIds[at.index] === nodeId) return at.index;
    return this.place?.positions.get(nodeId) ?? -1;
  }

  latest(nodeId: string, slot: number): number {
    return (slot !== -1 ? this.heads![slot] : this.others?.get(nodeId)) ?? NONE;
  }

  setLatest(nodeId: string, slot: number, at: number): void {
    if (slot !== -1) this.heads![slot] = at;
    else (this.others ??= new Map()).set(nodeId, at);
  }
}

export class InMemoryNodeStateStore implements NodeStateStore {
  private readonly instances = new Map<string, InstanceInvocations>();
  private readonly byNumber: InstanceInvocations[] = [];
  /** The instance of the last begin: a run begins all its invocations in one instance. */
  private current: InstanceInvocations | null = null;
  private readonly nodes = new NodeTable();
  private readonly columns = new RowColumns(INTS, TIMES);
  private readonly ids: string[] = [];
  private count = 0;
  /** Errors and cancel reasons: most invocations have none. */
  private errors: Map<number, string> | null = null;
  /**
   * Invocation numbers by id, built only if ids ever stop increasing. Until then an id is found by binary
   * search: `newSnowflake` ids increase within a process, and this store makes its own.
   */
  private byId: Map<string, number> | null = null;

  begin(args: BeginInvocationArgs): NodeInvocation {
    const inst = this.instanceOf(args);
    const at = this.count;
    this.columns.add(at);
    const id = newSnowflake();
    if (this.byId !== null) this.byId.set(id, at);
    else if (at > 0 && !increasing(this.ids[at - 1], id)) this.indexById().set(id, at);
    this.ids.push(id);

    const slot = inst.slotOf(args.nodeId, args);
    const prev = inst.latest(args.nodeId, slot);
    const c = this.columns;
    c.setInt(at, INSTANCE, inst.number);
    c.setInt(at, NODE, this.nodes.numberOf(args.nodeId, args.nodeName));
    c.setInt(at, VERSION, prev === NONE ? 1 : c.int(prev, VERSION) + 1);
    c.setInt(at, PARENT, this.latestCompletedVersion(prev));
    c.setInt(at, PREV, prev);
    c.setInt(at, NEXT, NONE);
    c.setByte(at, RUNNING);
    c.setTime(at, STARTED_AT, Date.now());
    c.setTime(at, ENDED_AT, NaN);
    inst.setLatest(args.nodeId, slot, at);
    if (inst.last === NONE) inst.first = at;
    else c.setInt(inst.last, NEXT, at);
    inst.last = at;
    inst.running++;
    this.count = at + 1;
    return this.record(at);
  }

  complete(id: string) {
    return this.transition(id, "COMPLETED", null);
  }
  cancel(id: string, reason: string) {
    return this.transition(id, "CANCELLED", reason);
  }
  fail(id: string, error: string) {
    return this.transition(id, "FAILED", error);
  }
  markCrashed(id: string) {
    return this.transition(id, "CRASHED", null);
  }

  get(id: string): NodeInvocation | null {
    const at = this.find(id);
    return at === NONE ? null : this.record(at);
  }

  listRunning(instanceId: string): NodeInvocation[] {
    const inst = this.instances.get(instanceId);
    const out: NodeInvocation[] = [];
    if (inst === undefined || inst.running === 0) return out;
    for (let at = inst.first; at !== NONE; at = this.columns.int(at, NEXT)) {
      if (this.columns.byte(at) === RUNNING) out.push(this.record(at));
    }
    return out;
  }

  history(instanceId: string, nodeId: string): NodeInvocation[] {
    const inst = this.instances.get(instanceId);
    const out: NodeInvocation[] = [];
    if (inst === undefined) return out;
    for (let at = inst.latest(nodeId, inst.slotOf(nodeId)); at !== NONE; at = this.columns.int(at, PREV)) out.push(this.record(at));
    return out.reverse();
  }

  listByInstance(instanceId: string): NodeInvocation[] {
    const inst = this.instances.get(instanceId);
    const out: NodeInvocation[] = [];
    if (inst === undefined) return out;
    for (let at = inst.first; at !== NONE; at = this.columns.int(at, NEXT)) out.push(this.record(at));
    return out;
  }

  private transition(id: string, to: InvocationStatus, error: string | null): NodeInvocation {
    const at = this.find(id);
    const status = at === NONE ? undefined : this.columns.byte(at);
    if (status !== RUNNING) throw new InvocationStateError(id, "RUNNING", status === undefined ? undefined : INVOCATION_STATUSES[status]);
    this.columns.setByte(at, CODES[to]);
    this.columns.setTime(at, ENDED_AT, Date.now());
    if (error !== null) (this.errors ??= new Map()).set(at, error);
    this.byNumber[this.columns.int(at, INSTANCE)].running--;
    return this.record(at);
  }

  /** The invocation as it reads now: a new object, never changed after. */
  private record(at: number): NodeInvocation {
    const c = this.columns;
    const node = c.int(at, NODE);
    const parent = c.int(at, PARENT);
    const endedAt = c.time(at, ENDED_AT);
    return {
      invocationId: this.ids[at],
      instanceId: this.byNumber[c.int(at, INSTANCE)].instanceId,
      nodeId: this.nodes.idOf(node),
      nodeName: this.nodes.nameOf(node),
      version: c.int(at, VERSION),
      parentVersion: parent === 0 ? null : parent,
      status: INVOCATION_STATUSES[c.byte(at)],
      startedAt: c.time(at, STARTED_AT),
      endedAt: Number.isNaN(endedAt) ? null : endedAt,
      error: this.errors?.get(at) ?? null,
    };
  }

  private instanceOf(args: BeginInvocationArgs): InstanceInvocations {
    const current = this.current;
    if (current !== null && current.instanceId === args.instanceId) return current;
    let inst = this.instances.get(args.instanceId);
    if (inst === undefined) {
      inst = new InstanceInvocations(args.instanceId, this.byNumber.length, args.binding ?? null);
      this.instances.set(args.instanceId, inst);
      this.byNumber.push(inst);
    }
    return (this.current = inst);
  }

  /** The version of the latest COMPLETED invocation from `at` back along its chain, or 0. */
  private latestCompletedVersion(at: number): number {
    for (; at !== NONE; at = this.columns.int(at, PREV)) {
      if (this.columns.byte(at) === COMPLETED) return this.columns.int(at, VERSION);
    }
    return 0;
  }

  /** The invocation numbered by `id`, or NONE. */
  private find(id: string): number {
    if (this.byId !== null) return this.byId.get(id) ?? NONE;
    const ids = this.ids;
    // A transition nearly always names one of the last invocations begun.
    for (let at = this.count - 1, stop = Math.max(0, this.count - 4); at >= stop; at--) if (ids[at] === id) return at;
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const probe = ids[mid];
      if (probe === id) return mid;
      if (increasing(probe, id)) lo = mid + 1;
      else hi = mid - 1;
    }
    return NONE;
  }

  private indexById(): Map<string, number> {
    const byId = (this.byId = new Map());
    for (let at = 0; at < this.count; at++) byId.set(this.ids[at], at);
    return byId;
  }
}

/** True when snowflake `a` comes before `b`: as numbers, so a shorter one first. */
const increasing = (a: string, b: string): boolean => a.length < b.length || (a.length === b.length && a < b);
