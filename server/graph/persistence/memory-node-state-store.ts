import { InvocationStateError } from "../errors";
import { newSnowflake } from "../ids";
import type { BeginInvocationArgs, NodeStateStore } from "./node-state-store";
import type { InvocationStatus, NodeInvocation } from "./records";

/**
 * One instance's invocations: version chains per node, and the ones still RUNNING. Kept for every
 * node execution of an instance (a store shared by 300 chain runs holds 30,600), so held lean: a
 * chain of one version is its record, not a list, and `all` lists ids (the records live in `byId`).
 */
class InstanceInvocations {
  readonly chains = new Map<string, NodeInvocation | NodeInvocation[]>();
  readonly running = new Set<string>();
  readonly all: string[] = [];
}

const chainOf = (c: NodeInvocation | NodeInvocation[] | undefined): readonly NodeInvocation[] =>
  c === undefined ? [] : Array.isArray(c) ? c : [c];

export class InMemoryNodeStateStore implements NodeStateStore {
  private readonly instances = new Map<string, InstanceInvocations>();
  private readonly byId = new Map<string, NodeInvocation>();

  begin(args: BeginInvocationArgs): NodeInvocation {
    let inst = this.instances.get(args.instanceId);
    if (!inst) this.instances.set(args.instanceId, (inst = new InstanceInvocations()));
    const chain = chainOf(inst.chains.get(args.nodeId));
    const record: NodeInvocation = {
      invocationId: newSnowflake(),
      instanceId: args.instanceId,
      nodeId: args.nodeId,
      nodeName: args.nodeName,
      version: chain.length + 1,
      parentVersion: chain.length > 0 ? latestCompletedVersion(chain) : null,
      status: "RUNNING",
      startedAt: Date.now(),
      endedAt: null,
      error: null,
    };
    if (chain.length === 0) inst.chains.set(args.nodeId, record);
    else if (chain.length === 1) inst.chains.set(args.nodeId, [chain[0], record]);
    else (chain as NodeInvocation[]).push(record);
    inst.running.add(record.invocationId);
    this.byId.set(record.invocationId, record);
    inst.all.push(record.invocationId);
    return record;
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
    return this.byId.get(id) ?? null;
  }

  listRunning(instanceId: string): NodeInvocation[] {
    return [...(this.instances.get(instanceId)?.running ?? [])].map((id) => this.byId.get(id)!);
  }

  history(instanceId: string, nodeId: string): NodeInvocation[] {
    return [...chainOf(this.instances.get(instanceId)?.chains.get(nodeId))];
  }

  listByInstance(instanceId: string): NodeInvocation[] {
    return (this.instances.get(instanceId)?.all ?? []).map((id) => this.byId.get(id)!);
  }

  private transition(id: string, to: InvocationStatus, error: string | null): NodeInvocation {
    const prev = this.byId.get(id);
    if (!prev || prev.status !== "RUNNING") throw new InvocationStateError(id, "RUNNING", prev?.status);
    const next: NodeInvocation = { ...prev, status: to, endedAt: Date.now(), error };
    this.byId.set(id, next);
    const inst = this.instances.get(prev.instanceId)!;
    const chain = inst.chains.get(prev.nodeId)!;
    if (Array.isArray(chain)) chain[prev.version - 1] = next;
    else inst.chains.set(prev.nodeId, next);
    inst.running.delete(id);
    return next;
  }
}

function latestCompletedVersion(chain: readonly NodeInvocation[]): number | null {
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i].status === "COMPLETED") return chain[i].version;
  return null;
}
