import { GRAPH_ERROR_CODES } from "@/server/graph/errors";
import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { EventRecorder } from "./event-recorder";
import { EXECUTOR_ATTR, HEARTBEAT_ATTR, type ExecutorIdentity } from "./executor-identity";

export interface SweeperDeps {
  instances: GraphInstanceStore;
  recorder: EventRecorder;
  executor: ExecutorIdentity;
  /** Is this instance running in this process right now? */
  runsHere: (instanceId: string) => boolean;
  /**
   * This process is the only executor of the database (it holds the data directory's lock): any other
   * executor's RUNNING instance is orphaned at once, whatever its heartbeat says.
   */
  exclusive?: boolean;
  /** Without exclusivity, a heartbeat older than this marks the executor gone (default 60 s). */
  staleAfterMs?: number;
  /**
   * Our own instance that no run here holds is left alone this long after its last heartbeat: a run
   * being launched writes its ownership a moment before it is registered as running here.
   */
  ownGraceMs?: number;
  now?: () => number;
}

/**
 * Marks RUNNING instances whose executor is gone as CRASHED: one of ours that no run here holds; with
 * the data directory's lock, any other executor's (a previous server process, killed); without it, one
 * whose heartbeat lapsed. It only marks: recovery (InstanceRecovery) runs them again.
 */
export class StaleInstanceSweeper {
  constructor(private readonly deps: SweeperDeps) {}

  async sweep(): Promise<string[]> {
    const running = await this.deps.instances.list({ status: "running", limit: 10_000 });
    const crashed: string[] = [];
    for (const instance of running) {
      if (this.isStale(instance) && (await this.markCrashed(instance))) crashed.push(instance.instanceId);
    }
    return crashed;
  }

  /** Marks one instance CRASHED if it is still RUNNING and not running here; false if it moved on. */
  async markCrashed(instance: GraphInstanceRecord): Promise<boolean> {
    if (this.deps.runsHere(instance.instanceId)) return false;
    try {
      await this.deps.instances.transition(instance.instanceId, "crashed", ["running"]);
    } catch (error) {
      if ((error as { code?: unknown }).code === GRAPH_ERROR_CODES.INSTANCE_STATE) return false; // finished or paused meanwhile
      throw error;
    }
    this.deps.recorder.record(instance.instanceId, instance.version, {
      type: "instance_status",
      instanceId: instance.instanceId,
      version: instance.version,
      from: "running",
      to: "crashed",
    });
    return true;
  }

  private isStale(instance: GraphInstanceRecord): boolean {
    const { executor } = this.deps;
    if (this.deps.runsHere(instance.instanceId)) return false;
    const owner = instance.attrs[EXECUTOR_ATTR];
    const beat = instance.attrs[HEARTBEAT_ATTR];
    const age = (this.deps.now ?? Date.now)() - (typeof beat === "number" ? beat : 0);
    if (owner === executor.id) return age > (this.deps.ownGraceMs ?? 1_000);
    if (typeof owner !== "string" || this.deps.exclusive) return true;
    return age > (this.deps.staleAfterMs ?? 60_000);
  }
}
