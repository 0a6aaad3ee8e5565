import type { StateSnapshots } from "@/server/db/state-snapshots";
import { isPromise } from "@/server/graph/awaitable";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { Durability } from "./durability";
import { ServiceError } from "./errors";
import type { EventRecorder } from "./event-recorder";
import { ownershipAttrs, type ExecutorIdentity } from "./executor-identity";
import { seedFork, type ForkPlan, type SeededFork } from "./fork-seed";
import type { GraphOrchestrator } from "./graph-orchestrator";
import type { ForkStarter } from "./instance-forks";

export interface LocalForkStarterDeps {
  orchestrator: GraphOrchestrator;
  durability: Durability;
  recorder: EventRecorder;
  executor: ExecutorIdentity;
  snapshots: StateSnapshots | null;
}

/**
 * Forks in this process (SQLite): the fork is written in one synchronous transaction
 * (`Durability.together`, so its stores must answer synchronously), its first events recorded, and
 * this process's orchestrator runs it (RECOVERY from the seeded ledger); the answer waits for the
 * commit.
 */
export class LocalForkStarter implements ForkStarter {
  constructor(private readonly deps: LocalForkStarterDeps) {}

  async start(plan: ForkPlan): Promise<GraphInstanceRecord> {
    const { orchestrator, durability, recorder, executor, snapshots } = this.deps;
    if (!snapshots) throw new ServiceError("BAD_REQUEST", "this store keeps no state per point of a run");
    const stores = { instances: orchestrator.coordinator.instances, delivers: orchestrator.coordinator.delivers, snapshots };
    let seeded: SeededFork;
    try {
      seeded = durability.together(() => {
        const written = seedFork(stores, { ...plan, attrs: { ...ownershipAttrs(executor), ...plan.attrs } });
        if (isPromise(written)) {
          written.catch(() => {}); // the fork fails here; the outcome of its late writes no longer matters
          throw new Error("a fork in this process needs synchronous stores");
        }
        return written;
      });
    } catch (error) {
      throw durability.explain(error);
    }
    const created = durability.mark();
    const { instance, events } = seeded;
    for (const event of events) recorder.record(instance.instanceId, instance.version, event);
    const started = orchestrator.startSeeded(instance);
    await durability.committed(created);
    await started;
    return instance;
  }
}
