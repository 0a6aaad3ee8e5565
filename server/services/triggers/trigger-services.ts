import type { InstanceControl } from "@/server/services/instance-control";
import type { GraphOrchestrator, InstanceRef } from "@/server/services/graph-orchestrator";
import type { IdempotentCommands } from "@/server/services/idempotent-commands";
import type { InstanceQueryService } from "@/server/services/instance-query-service";
import type { SpecService } from "@/server/services/spec-service";
import { HookService } from "./hook-service";
import type { HookStore } from "./hook-store";
import { ScheduleService } from "./schedule-service";
import type { ScheduleStore } from "./schedule-store";
import { Scheduler, type FireLock } from "./scheduler";
import { startedByOf, type StartedBy } from "./started-by";

export interface RunOutcome {
  instanceId: string;
  status: string;
  /** What reached END (payload contents), once finished. */
  result: unknown[] | null;
  /** False when the wait ended before the run did. */
  finished: boolean;
}

/** Schedules, webhooks and what started a run: the Triggers page, its API and the hook route use these. */
export interface TriggerServices {
  readonly schedules: ScheduleService;
  readonly hooks: HookService;
  readonly scheduler: Scheduler;
  /**
   * Starts a run as REST create does (Idempotency-Key included), recording what started it. `replayed`:
   * the key's first request made this run, and this is its answer again.
   */
  start(args: { spec: string; input?: unknown }, key: string | null, startedBy: StartedBy): Promise<InstanceRef & { replayed: boolean }>;
  startedBy(instanceId: string): Promise<StartedBy | null>;
  /** Waits up to `timeoutMs` for a run to finish (or to wait for a person), then says where it is. */
  outcome(instanceId: string, timeoutMs: number): Promise<RunOutcome>;
  /** Start-up: declared schedules from the specs, missed fires, timers; then a spec sync every few seconds. */
  begin(syncIntervalMs?: number): Promise<void>;
  /**
   * No more fires or syncs; resolves once those in flight are done (at most `waitMs`, default 2 s), so a
   * process that closes its database after it does not fail a fire it had started. A fire past the
   * wait fails as a dying process's would: the row still holds it due, and it fires again elsewhere
   * (or at the next start) under the same Idempotency-Key.
   */
  end(waitMs?: number): Promise<void>;
}

export interface TriggerDeps {
  /** Where schedules and webhooks are kept. */
  stores: { schedules: ScheduleStore; hooks: HookStore };
  /** Several web processes share the schedules (PostgreSQL: pgFireLock): one fires each due schedule. */
  fireLock?: FireLock;
  specs: SpecService;
  commands: IdempotentCommands;
  orchestrator: GraphOrchestrator;
  control: InstanceControl;
  instances: InstanceQueryService;
}

const FINISHED = new Set(["completed", "failed", "stopped", "crashed"]);

export function createTriggerServices(deps: TriggerDeps): TriggerServices {
  const scheduleStore = deps.stores.schedules;
  const hookStore = deps.stores.hooks;
  const start: TriggerServices["start"] = async (args, key, startedBy) => {
    const answer = await deps.commands.create(args, key, startedBy);
    return { ...answer.body, replayed: answer.replayed };
  };
  const load = (id: string) => deps.orchestrator.coordinator.instances.load(id);
  const scheduler = new Scheduler({
    store: scheduleStore,
    fireLock: deps.fireLock,
    start: (s, fireAt, key) => start({ spec: s.spec, input: s.input ?? undefined }, key, { kind: "schedule", name: s.name, fireAt }),
    statusOf: async (id) => (await load(id))?.status ?? null,
    stop: (id) => deps.control.stop(id),
  });
  const schedules = new ScheduleService({ store: scheduleStore, scheduler, specs: deps.specs });
  const hooks = new HookService({ store: hookStore, specs: deps.specs });
  let sync: NodeJS.Timeout | null = null;
  let syncing: Promise<void> | null = null;
  return {
    schedules,
    hooks,
    scheduler,
    start,
    startedBy: async (id) => {
      const instance = await load(id);
      return instance ? startedByOf(instance) : null;
    },
    outcome: async (instanceId, timeoutMs) => {
      await Promise.race([deps.orchestrator.settled(instanceId), new Promise((r) => setTimeout(r, timeoutMs).unref?.())]);
      const view = await deps.instances.get({ instanceId, node: null });
      const status = view.summary.status;
      const finished = FINISHED.has(status) || (status === "paused" && view.summary.waiting);
      const result = view.summary.result?.map((p) => (p && typeof p === "object" && "content" in p ? p.content : p)) ?? null;
      return { instanceId, status, result, finished };
    },
    begin: async (syncIntervalMs = 3_000) => {
      await schedules.syncSpecs();
      await scheduler.start();
      // A timer that throws would be an uncaught exception in the server: a failed sync is logged, and
      // the next one tries again. One sync at a time: a slow one is not overlapped by the next.
      sync = setInterval(() => {
        syncing ??= schedules
          .syncSpecs()
          .then(() => (deps.fireLock ? scheduler.rearm() : undefined))
          .catch((error: unknown) => console.error(`[modex] schedule sync failed: ${error instanceof Error ? error.message : String(error)}`))
          .finally(() => (syncing = null));
      }, syncIntervalMs);
      sync.unref?.();
    },
    end: async (waitMs = 2_000) => {
      if (sync) clearInterval(sync);
      scheduler.stop();
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
      await Promise.race([Promise.all([syncing, scheduler.idle()]), waited]);
      clearTimeout(timer);
    },
  };
}
