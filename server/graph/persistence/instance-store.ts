import type { Awaitable } from "../awaitable";
import type { GraphPayload } from "../payload";
import type { GraphInstanceRecord, GraphIORecord, InstanceStatus } from "./records";

export interface CreateInstanceArgs {
  instanceId?: string;
  graphName: string;
  specId?: string | null;
  nodeIdMap: Readonly<Record<string, string>>;
  input: GraphPayload;
  attrs?: Record<string, unknown>;
}

export interface UpdateAttrsOptions {
  /**
   * False for bookkeeping that is not the run's own activity (another run forked from it): `updatedAt`,
   * by which lists order runs (latest activity first), stays. Default true.
   */
  touch?: boolean;
}

export interface ListInstancesArgs {
  status?: InstanceStatus;
  limit?: number;
}

/**
 * One row per run version. `load` returns the latest version; older versions are a frozen audit
 * trail. Transitions follow the status machine in `records.ts` and raise `InstanceStateError`.
 */
export interface GraphInstanceStore {
  create(args: CreateInstanceArgs): Awaitable<GraphInstanceRecord>;
  /** Version N+1 on the same instance id. A latest version still RUNNING is marked crashed first. */
  beginInvocation(instanceId: string, input: GraphPayload): Awaitable<GraphInstanceRecord>;
  load(instanceId: string): Awaitable<GraphInstanceRecord | null>;
  loadVersion(instanceId: string, version: number): Awaitable<GraphInstanceRecord | null>;
  versions(instanceId: string): Awaitable<GraphInstanceRecord[]>;
  transition(instanceId: string, to: InstanceStatus, from?: readonly InstanceStatus[]): Awaitable<GraphInstanceRecord>;
  updateAttrs(instanceId: string, attrs: Record<string, unknown>, options?: UpdateAttrsOptions): Awaitable<void>;
  saveState(instanceId: string, state: unknown): Awaitable<void>;
  loadState(instanceId: string): Awaitable<unknown | null>;
  recordOutput(instanceId: string, version: number, output: readonly GraphPayload[]): Awaitable<void>;
  ioRecords(instanceId: string): Awaitable<GraphIORecord[]>;
  /** Latest version of each instance, newest first. */
  list(args?: ListInstancesArgs): Awaitable<GraphInstanceRecord[]>;
}
