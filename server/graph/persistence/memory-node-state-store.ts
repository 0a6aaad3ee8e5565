import { InvocationStateError } from "../errors";
import { newSnowflake } from "../ids";
import type { BeginInvocationArgs, NodeStateStore } from "./node-state-store";
import type { InvocationStatus, NodeInvocation } from "./records";

/** One instance's invocations: version chains per node, and the ones still RUNNING. */
class InstanceInvocations {
  readonly chains = new Map<string, NodeInvocation[]>();
  readonly running = new Set<string>();
  readonly all: NodeInvocation[] = [];
}

export class InMemoryNodeStateStore implements NodeStateStore {
  private readonly instances = new Map<string, InstanceInvocations>();
  private readonly byId = new Map<string, { record: NodeInvocation; index: number }>();

  begin(args: BeginInvocationArgs): NodeInvocation {
    let inst = this.instances.get(args.instanceId);
    if (!inst) this.instances.set(args.instanceId, (inst = new InstanceInvocations()));
    const chain = inst.chains.get(args.nodeId);
    const record: NodeInvocation = {
      invocationId: newSnowflake(),
      instanceId: args.instanceId,
      nodeId: args.nodeId,
      nodeName: args.nodeName,
      version: chain ? chain.length + 1 : 1,
      parentVersion: chain ? latestCompletedVersion(chain) : null,
      status: "RUNNING",
      startedAt: Date.now(),
      endedAt: null,
      error: null,
    };
    // Most chains hold one version: an array of one, where a push into [] would reserve 17 slots.
    if (chain) chain.push(record);
    else inst.chains.set(args.nodeId, [record]);
    inst.running.add(record.invocationId);
    this.byId.set(record.invocationId, { record, index: inst.all.length });
    inst.all.push(record);
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
    return this.byId.get(id)?.record ?? null;
  }

  listRunning(instanceId: string): NodeInvocation[] {
    return [...(this.instances.get(instanceId)?.running ?? [])].map((id) => this.byId.get(id)!.record);
  }

  history(instanceId: string, nodeId: string): NodeInvocation[] {
    return [...(this.instances.get(instanceId)?.chains.get(nodeId) ?? [])];
  }

  listByInstance(instanceId: string): NodeInvocation[] {
    return [...(this.instances.get(instanceId)?.all ?? [])];
  }

  private transition(id: string, to: InvocationStatus, error: string | null): NodeInvocation {
    const slot = this.byId.get(id);
    if (!slot || slot.record.status !== "RUNNING") throw new InvocationStateError(id, "RUNNING", slot?.record.status);
    const prev = slot.record;
    const next: NodeInvocation = { ...prev, status: to, endedAt: Date.now(), error };
    slot.record = next;
    const inst = this.instances.get(prev.instanceId)!;
    inst.all[slot.index] = next;
    inst.chains.get(prev.nodeId)![prev.version - 1] = next;
    inst.running.delete(id);
    return next;
  }
}

function latestCompletedVersion(chain: readonly NodeInvocation[]): number | null {
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i].status === "COMPLETED") return chain[i].version;
  return null;
}
