import { cloneData } from "../clone";
import { InstanceNotFoundError, InstanceStateError } from "../errors";
import { newSnowflake } from "../ids";
import type { GraphPayload } from "../payload";
import type { CreateInstanceArgs, GraphInstanceStore, ListInstancesArgs, UpdateAttrsOptions } from "./instance-store";
import { canTransition, type GraphInstanceRecord, type GraphIORecord, type InstanceStatus } from "./records";

interface Entry {
  versions: GraphInstanceRecord[];
  io: GraphIORecord[];
  state: unknown | null;
}

export class InMemoryGraphInstanceStore implements GraphInstanceStore {
  private readonly entries = new Map<string, Entry>();

  create(args: CreateInstanceArgs): GraphInstanceRecord {
    const now = Date.now();
    const record: GraphInstanceRecord = {
      instanceId: args.instanceId ?? newSnowflake(),
      version: 1,
      graphName: args.graphName,
      specId: args.specId ?? null,
      status: "running",
      nodeIdMap: Object.isFrozen(args.nodeIdMap) ? args.nodeIdMap : Object.freeze({ ...args.nodeIdMap }),
      attrs: { ...(args.attrs ?? {}) },
      createdAt: now,
      updatedAt: now,
    };
    if (this.entries.has(record.instanceId)) throw new InstanceStateError(record.instanceId, "existing", "created");
    this.entries.set(record.instanceId, {
      versions: [record],
      io: [{ instanceId: record.instanceId, version: 1, input: args.input, output: null }],
      state: null,
    });
    return record;
  }

  beginInvocation(instanceId: string, input: GraphPayload): GraphInstanceRecord {
    const entry = this.entry(instanceId);
    let latest = entry.versions[entry.versions.length - 1];
    if (latest.status === "running") latest = this.replaceLatest(entry, { status: "crashed" });
    const now = Date.now();
    const next: GraphInstanceRecord = { ...latest, version: latest.version + 1, status: "running", createdAt: now, updatedAt: now };
    entry.versions.push(next);
    entry.io.push({ instanceId, version: next.version, input, output: null });
    entry.state = null;
    return next;
  }

  load(instanceId: string): GraphInstanceRecord | null {
    const e = this.entries.get(instanceId);
    return e ? e.versions[e.versions.length - 1] : null;
  }

  loadVersion(instanceId: string, version: number): GraphInstanceRecord | null {
    return this.entries.get(instanceId)?.versions[version - 1] ?? null;
  }

  versions(instanceId: string): GraphInstanceRecord[] {
    return [...(this.entries.get(instanceId)?.versions ?? [])];
  }

  transition(instanceId: string, to: InstanceStatus, from?: readonly InstanceStatus[]): GraphInstanceRecord {
    const entry = this.entry(instanceId);
    const latest = entry.versions[entry.versions.length - 1];
    if ((from && !from.includes(latest.status)) || !canTransition(latest.status, to)) {
      throw new InstanceStateError(instanceId, latest.status, to);
    }
    return this.replaceLatest(entry, { status: to });
  }

  updateAttrs(instanceId: string, attrs: Record<string, unknown>, { touch = true }: UpdateAttrsOptions = {}): void {
    const entry = this.entry(instanceId);
    const latest = entry.versions[entry.versions.length - 1];
    this.replaceLatest(entry, { attrs: { ...latest.attrs, ...attrs }, ...(touch ? {} : { updatedAt: latest.updatedAt }) });
  }

  saveState(instanceId: string, state: unknown): void {
    this.entry(instanceId).state = cloneData(state);
  }

  loadState(instanceId: string): unknown | null {
    const s = this.entries.get(instanceId)?.state;
    return s == null ? null : cloneData(s);
  }

  recordOutput(instanceId: string, version: number, output: readonly GraphPayload[]): void {
    // Replace, never mutate: records handed out by `ioRecords` are snapshots.
    const io = this.entry(instanceId).io;
    const at = io.findIndex((r) => r.version === version);
    if (at !== -1) io[at] = { ...io[at], output: [...output] };
  }

  ioRecords(instanceId: string): GraphIORecord[] {
    return [...(this.entries.get(instanceId)?.io ?? [])];
  }

  list(args: ListInstancesArgs = {}): GraphInstanceRecord[] {
    const latest = [...this.entries.values()].map((e) => e.versions[e.versions.length - 1]);
    return latest
      .filter((r) => !args.status || r.status === args.status)
      .sort((a, b) => b.updatedAt - a.updatedAt || (b.instanceId > a.instanceId ? 1 : -1))
      .slice(0, args.limit ?? 50);
  }

  private entry(instanceId: string): Entry {
    const e = this.entries.get(instanceId);
    if (!e) throw new InstanceNotFoundError(instanceId);
    return e;
  }

  private replaceLatest(entry: Entry, patch: Partial<GraphInstanceRecord>): GraphInstanceRecord {
    const i = entry.versions.length - 1;
    const next = { ...entry.versions[i], updatedAt: Date.now(), ...patch };
    entry.versions[i] = next;
    return next;
  }
}
