import type { StateSnapshots } from "@/server/db/state-snapshots";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { EngineEvent } from "@/server/graph/events";
import { newSnowflake } from "@/server/graph/ids";
import type { GraphPayload } from "@/server/graph/payload";
import type { DeliverStore } from "@/server/graph/persistence/deliver-store";
import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { EXTERNAL_SOURCE } from "./control-checks";
import { FORKS_ATTR, forksOf } from "./fork-lineage";
import type { PendingAtPoint } from "./run-points";

/** A fork checked and ready to write (InstanceForks.fork makes it; a ForkStarter writes and starts it). */
export interface ForkPlan {
  /** The spec revision the fork runs, compiled with the origin's node ids. */
  graph: Pick<CompiledGraph, "name" | "nodeIdMap" | "topology">;
  specId: string;
  /** The input of the origin's version at the point (the fork's version 1 input). */
  input: GraphPayload;
  /** Who started it and where it came from (`forked_from`). */
  attrs: Record<string, unknown>;
  /** The state it starts from (as the spec's state schema parsed it), and that state as JSON (its seed). */
  state: unknown;
  stateJson: string;
  /** The delivers open at the point: seeded as PENDING rows, they are what the fork runs first. */
  pending: readonly PendingAtPoint[];
  /** The origin as loaded before the fork was checked (its forks list, should it be unreadable now). */
  origin: GraphInstanceRecord;
  /** The point, for the origin's list of forks. */
  eventId: number;
  eventNumber: number;
}

/** The stores a fork is written through: synchronous (SQLite, in memory) or awaitable (PostgreSQL). */
export interface ForkStores {
  instances: Pick<GraphInstanceStore, "create" | "saveState" | "load" | "updateAttrs">;
  delivers: Pick<DeliverStore, "appendPending">;
  snapshots: Pick<StateSnapshots, "saveSeed">;
}

export interface SeededFork {
  instance: GraphInstanceRecord;
  /** The fork's first events, to record with it: RUNNING, then each seeded deliver promoted. */
  events: EngineEvent[];
}

/**
 * Writes a fork: the new instance (RUNNING, not started), its state and seed snapshot, its seeded
 * PENDING delivers, and the origin's `forks` attr (read again here, so another fork made meanwhile
 * stays listed). The caller runs it inside one transaction and starts the fork once it committed.
 * With synchronous stores it returns synchronously, so it fits a synchronous transaction
 * (`Durability.together`); with awaitable stores it resolves when the last write did.
 */
export function seedFork(stores: ForkStores, plan: ForkPlan): Awaitable<SeededFork> {
  const made = stores.instances.create({ graphName: plan.graph.name, specId: plan.specId, nodeIdMap: plan.graph.nodeIdMap, input: plan.input, attrs: plan.attrs });
  return chain(made, (instance) => {
    const instanceId = instance.instanceId;
    const events: EngineEvent[] = [{ type: "instance_status", instanceId, version: instance.version, from: null, to: "running" }];
    const writes: (() => Awaitable<unknown>)[] = [() => stores.instances.saveState(instanceId, plan.state), () => stores.snapshots.saveSeed(instanceId, plan.stateJson)];
    for (const p of plan.pending) {
      const deliverId = newSnowflake();
      // A deliver from outside the graph, or from a node the fork's revision lacks, arrives as external.
      const external = p.source === EXTERNAL_SOURCE || !plan.graph.topology.has(p.source);
      writes.push(() =>
        stores.delivers.appendPending({
          deliverId,
          instanceId,
          sourceNode: external ? EXTERNAL_SOURCE : p.source,
          sourceNodeId: external ? EXTERNAL_SOURCE : plan.graph.nodeIdMap[p.source],
          sourceInvocationId: null,
          targetNode: p.target,
          targetNodeId: plan.graph.nodeIdMap[p.target],
          content: p.content,
          createdAt: Date.now(),
        }),
      );
      events.push({ type: "deliver_promoted", instanceId, deliverId, source: p.source, target: p.target, payload: p.content });
    }
    writes.push(() =>
      chain(stores.instances.load(plan.origin.instanceId), (current) => {
        const forks = [...forksOf(current ?? plan.origin), { instanceId, eventId: plan.eventId, eventNumber: plan.eventNumber, at: Date.now() }];
        // Not the origin's activity: it keeps its place in the Instances list (the fork is the new row).
        return stores.instances.updateAttrs(plan.origin.instanceId, { [FORKS_ATTR]: forks }, { touch: false });
      }),
    );
    return chain(inOrder(writes), () => ({ instance, events }));
  });
}

/** Runs `writes` one after another: synchronously while each answers synchronously. */
function inOrder(writes: readonly (() => Awaitable<unknown>)[], from = 0): Awaitable<void> {
  for (let i = from; i < writes.length; i++) {
    const written = writes[i]();
    if (isPromise(written)) return written.then(() => inOrder(writes, i + 1));
  }
}
