import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { EventRecorder } from "./event-recorder";
import { EXECUTOR_ATTR, HEARTBEAT_ATTR, parseExecutorId, type ExecutorIdentity } from "./executor-identity";

export interface SweeperDeps {
  instances: GraphInstanceStore;
  recorder: EventRecorder;
  executor: ExecutorIdentity;
  /** Is this instance running in this process right now? */
  runsHere: (instanceId: string) => boolean;
  /** A heartbeat older than this marks the executor gone (default 60 s). */
  staleAfterMs?: number;
  /** Is a process of this host alive? Injected by tests. */
  isAlive?: (pid: number) => boolean;
  now?: () => number;
}

/**
 * Marks RUNNING instances whose executor is gone as CRASHED. Gone means: this process owns it but is
 * not running it; or another process of this host that is no longer alive (or is this pid reused by
 * a new server); or a heartbeat that lapsed. It only marks: recovery stays an explicit operation.
 */
export class StaleInstanceSweeper {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: SweeperDeps) {}

  async sweep(): Promise<string[]> {
    const running = await this.deps.instances.list({ status: "running", limit: 10_000 });
    const crashed: string[] = [];
    for (const instance of running) {
      if (!this.isStale(instance)) continue;
      try {
        await this.deps.instances.transition(instance.instanceId, "crashed", ["running"]);
      } catch {
        continue; // it moved on meanwhile (finished, paused): not ours to mark
      }
      this.deps.recorder.record(instance.instanceId, instance.version, {
        type: "instance_status",
        instanceId: instance.instanceId,
        version: instance.version,
        from: "running",
        to: "crashed",
      });
      crashed.push(instance.instanceId);
    }
    return crashed;
  }

  /** Sweeps every `intervalMs` (timer unref'd: it never keeps the process alive). */
  start(intervalMs = 30_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep().catch((e) => console.error("[modex] sweep failed:", e)), intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private isStale(instance: GraphInstanceRecord): boolean {
    const { executor } = this.deps;
    if (this.deps.runsHere(instance.instanceId)) return false;
    const owner = instance.attrs[EXECUTOR_ATTR];
    if (typeof owner !== "string") return true; // nobody claims it
    if (owner === executor.id) return true; // ours, but not running here: orphaned
    const parsed = parseExecutorId(owner);
    if (parsed && parsed.host === executor.host) {
      if (parsed.pid === executor.pid) return true; // a previous server that had our pid
      if (!(this.deps.isAlive ?? isProcessAlive)(parsed.pid)) return true;
    }
    const beat = instance.attrs[HEARTBEAT_ATTR];
    const now = (this.deps.now ?? Date.now)();
    return typeof beat !== "number" || now - beat > (this.deps.staleAfterMs ?? 60_000);
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
