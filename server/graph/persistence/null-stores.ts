import { newSnowflake } from "../ids";
import type { GraphPayload } from "../payload";
import type { CreateInstanceArgs, GraphInstanceStore } from "./instance-store";
import type { BeginInvocationArgs, NodeStateStore } from "./node-state-store";
import type { GraphInstanceRecord, InvocationStatus, NodeInvocation } from "./records";

/**
 * Null stores persist nothing. They still answer with well-formed records so the engine's
 * lifecycle code has one path; they never raise state errors because they keep no state.
 */
export class NullGraphInstanceStore implements GraphInstanceStore {
  create(args: CreateInstanceArgs): GraphInstanceRecord {
    return nullRecord(args.instanceId ?? newSnowflake(), args.graphName, args.nodeIdMap);
  }
  beginInvocation(instanceId: string): GraphInstanceRecord {
    return nullRecord(instanceId, "", {});
  }
  load(): null {
    return null;
  }
  loadVersion(): null {
    return null;
  }
  versions(): GraphInstanceRecord[] {
    return [];
  }
  transition(instanceId: string, to: GraphInstanceRecord["status"]): GraphInstanceRecord {
    return { ...nullRecord(instanceId, "", {}), status: to };
  }
  updateAttrs(): void {}
  saveState(): void {}
  loadState(): null {
    return null;
  }
  recordOutput(_id: string, _v: number, _o: readonly GraphPayload[]): void {}
  ioRecords() {
    return [];
  }
  list(): GraphInstanceRecord[] {
    return [];
  }
}

function nullRecord(instanceId: string, graphName: string, nodeIdMap: Readonly<Record<string, string>>): GraphInstanceRecord {
  return { instanceId, version: 1, graphName, specId: null, status: "running", nodeIdMap, attrs: {}, createdAt: 0, updatedAt: 0 };
}

let nullSeq = 0;

/**
 * An invocation record the Null store answers with. Its constant fields live on the prototype: the
 * record is five fields, not ten, and a wide fan-out makes two per branch (begin, complete).
 */
export class NullInvocation implements NodeInvocation {
  /** What opened it, for the Null coordinator's completion (see `openerOf`); not part of the record. */
  readonly #opener: BeginInvocationArgs | null;
  constructor(
    readonly invocationId: string,
    readonly instanceId: string,
    readonly nodeId: string,
    readonly nodeName: string,
    readonly status: InvocationStatus,
    opener: BeginInvocationArgs | null = null,
  ) {
    this.#opener = opener;
  }
  static openerOf(invocation: NodeInvocation): BeginInvocationArgs | null {
    return invocation instanceof NullInvocation ? invocation.#opener : null;
  }
  get version(): number {
    return 1;
  }
  get parentVersion(): null {
    return null;
  }
  get startedAt(): number {
    return 0;
  }
  get endedAt(): number | null {
    return this.status === "RUNNING" ? null : 0;
  }
  get error(): null {
    return null;
  }
}

export class NullNodeStateStore implements NodeStateStore {
  begin(args: BeginInvocationArgs): NodeInvocation {
    return new NullInvocation(`null_${++nullSeq}`, args.instanceId, args.nodeId, args.nodeName, "RUNNING", args);
  }
  complete(id: string) {
    return ended(id, "COMPLETED");
  }
  cancel(id: string) {
    return ended(id, "CANCELLED");
  }
  fail(id: string) {
    return ended(id, "FAILED");
  }
  markCrashed(id: string) {
    return ended(id, "CRASHED");
  }
  get(): null {
    return null;
  }
  listRunning(): NodeInvocation[] {
    return [];
  }
  history(): NodeInvocation[] {
    return [];
  }
  listByInstance(): NodeInvocation[] {
    return [];
  }
}

function ended(invocationId: string, status: InvocationStatus): NodeInvocation {
  return new NullInvocation(invocationId, "", "", "", status);
}
