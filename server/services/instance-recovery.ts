import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import { isServiceError, isStorageServiceError } from "./errors";
import type { GraphControlService } from "./graph-control-service";
import type { StaleInstanceSweeper } from "./stale-instance-sweeper";

export interface InstanceRecoveryDeps {
  instances: GraphInstanceStore;
  sweeper: StaleInstanceSweeper;
  control: GraphControlService;
  /** Is this instance running in this process right now? */
  runsHere: (instanceId: string) => boolean;
  /** MODEX_RECOVERY: re-run CRASHED instances by itself (on), or only mark them (off: `recover` by hand). */
  auto: boolean;
  /** Periodic upkeep run with each pass (expired Idempotency-Keys are forgotten). */
  housekeeping?: () => unknown;
}

export interface RecoveryPass {
  crashed: string[];
  recovered: string[];
}

const RETRY_MS = [250, 1_000, 2_000, 5_000, 10_000, 30_000];
/** An instance not orphaned again for this long starts its backoff afresh. */
const QUIET_MS = 60_000;

/**
 * Keeps orphaned instances moving: each pass marks RUNNING instances whose executor is gone as CRASHED
 * (the sweeper) and, with automatic recovery on, re-runs every CRASHED instance from its ledger through
 * GraphControlService. It runs at start-up, periodically, and soon after a run here ended without
 * settling its instance (a storage failure fenced it). A pass that meets a storage failure tries again
 * with backoff until storage works, so nothing stays RUNNING or CRASHED once the disk has space again.
 * A CRASHED instance whose recovery fails for another reason (its spec no longer compiles, say) is
 * reported once and left for an operator's `recover`.
 */
export class InstanceRecovery {
  private timer: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private retryDue = 0;
  private attempt = 0;
  private running: Promise<RecoveryPass> | null = null;
  private readonly givenUp = new Set<string>();
  /** Instances whose run here ended without settling them: orphaned for certain, whatever their heartbeat. */
  private readonly orphans = new Set<string>();
  /** How often each instance's run was orphaned lately (reset after a quiet minute): its recovery backs off. */
  private readonly orphanings = new Map<string, { count: number; at: number; until: number }>();

  constructor(private readonly deps: InstanceRecoveryDeps) {}

  /** One pass; passes never overlap (a caller during one gets its result). */
  pass(): Promise<RecoveryPass> {
    this.running ??= this.runPass().finally(() => (this.running = null));
    return this.running;
  }

  /** Periodic passes every `intervalMs` (timer unref'd: it never keeps the process alive). */
  start(intervalMs = 10_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.pass().catch(() => {}), intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.timer = this.retry = null;
  }

  /**
   * A run here ended without settling its instance: a pass soon (the next macrotask). A run orphaned again
   * soon after its recovery (a disk that is still full) is recovered later each time, as a failed pass
   * retries, so recovery never spins on a storage failure.
   */
  orphaned(instanceId: string): void {
    const now = Date.now();
    const last = this.orphanings.get(instanceId);
    const count = last && now - last.at < QUIET_MS ? last.count + 1 : 1;
    const delay = count === 1 ? 0 : RETRY_MS[Math.min(count - 2, RETRY_MS.length - 1)];
    this.orphanings.set(instanceId, { count, at: now, until: now + delay });
    for (const [id, o] of this.orphanings) if (now - o.at >= QUIET_MS + RETRY_MS[RETRY_MS.length - 1]) this.orphanings.delete(id);
    this.orphans.add(instanceId);
    this.schedule(delay);
  }

  /** A pass in `delayMs`, or at the pass already due sooner. */
  private schedule(delayMs: number): void {
    const due = Date.now() + delayMs;
    if (this.retry && this.retryDue <= due) return;
    if (this.retry) clearTimeout(this.retry);
    this.retryDue = due;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.pass().catch(() => {});
    }, delayMs);
    this.retry.unref?.();
  }

  private async runPass(): Promise<RecoveryPass> {
    const pass: RecoveryPass = { crashed: [], recovered: [] };
    let storageFailed = false;
    try {
      pass.crashed = [...(await this.markOrphans()), ...(await this.deps.sweeper.sweep())];
      if (this.deps.auto) storageFailed = await this.recoverAll(pass);
      await this.deps.housekeeping?.();
    } catch (error) {
      console.error(`[modex] recovery pass failed: ${(error as Error).message}`);
      storageFailed = true;
    }
    if (storageFailed) this.schedule(RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)]);
    else this.attempt = 0;
    return pass;
  }

  /** Marks the known orphans CRASHED (a storage failure leaves the rest for the next pass). */
  private async markOrphans(): Promise<string[]> {
    const marked: string[] = [];
    for (const id of [...this.orphans]) {
      const instance = await this.deps.instances.load(id);
      if (instance?.status === "running" && (await this.deps.sweeper.markCrashed(instance))) marked.push(id);
      this.orphans.delete(id);
    }
    return marked;
  }

  /** Recovers every CRASHED instance not running here; true if storage refused any of it. */
  private async recoverAll(pass: RecoveryPass): Promise<boolean> {
    const crashed = await this.deps.instances.list({ status: "crashed", limit: 10_000 });
    let storageFailed = false;
    const now = Date.now();
    for (const instance of crashed) {
      const id = instance.instanceId;
      if (this.deps.runsHere(id) || this.givenUp.has(id)) continue;
      const until = this.orphanings.get(id)?.until ?? 0;
      if (until > now) {
        this.schedule(until - now); // its backoff: a pass then
        continue;
      }
      try {
        await this.deps.control.recover(id);
        pass.recovered.push(id);
      } catch (error) {
        if (isStorageServiceError(error)) storageFailed = true;
        else if (!(isServiceError(error) && error.code === "INVALID_STATE")) {
          this.givenUp.add(id);
          console.error(`[modex] could not recover ${id} (recover it by hand once fixed): ${(error as Error).message}`);
        }
      }
    }
    return storageFailed;
  }

  /** An operator's recover: a previous failure no longer keeps the instance out of automatic passes. */
  forgive(instanceId: string): void {
    this.givenUp.delete(instanceId);
  }
}
