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

/** A fresh id for an invocation the Null store begins. */
export const newNullInvocationId = (): string => `null_${++nullSeq}`;

/**
 * A RUNNING invocation the Null store answers with. All but its id is read from what opened it, or
 * is constant (on the prototype): two fields, where a wide fan-out begins one per branch.
 */
export class NullInvocation implements NodeInvocation {
  /** What opened it, for the Null coordinator's completion (see `openerOf`). */
  readonly #opener: BeginInvocationArgs;
  constructor(
    readonly invocationId: string,
    opener: BeginInvocationArgs,
  ) {
    this.#opener = opener;
  }
  static openerOf(invocation: NodeInvocation): BeginInvocationArgs | null {
    return invocation instanceof NullInvocation ? invocation.#opener : null;
  }
  get instanceId(): string {
    return this.#opener.instanceId;
  }
  get nodeId(): string {
    return this.#opener.nodeId;
  }
  get nodeName(): string {
    return this.#opener.nodeName;
  }
  get status(): InvocationStatus {
    return "RUNNING";
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
  get endedAt(): null {
    return null;
  }
  get error(): null {
    return null;
  }
}

export class NullNodeStateStore implements NodeStateStore {
  begin(args: BeginInvocationArgs): NodeInvocation {
    return new NullInvocation(newNullInvocationId(), args);
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
  return { invocationId, instanceId: "", nodeId: "", nodeName: "", version: 1, parentVersion: null, status, startedAt: 0, endedAt: 0, error: null };
}
