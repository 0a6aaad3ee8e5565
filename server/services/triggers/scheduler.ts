import type { InstanceStatus } from "@/server/graph/persistence/records";
import { ServiceError } from "@/server/services/errors";
import { latestFireBetween, nextFire } from "./cron";
import type { ScheduleRecord, ScheduleStore } from "./schedule-store";
import { TimerQueue } from "./timer-queue";

/**
 * Runs one fire of a schedule unless another process is firing that schedule right now (then answers
 * false without running it): with several web processes on one database, one fires each due schedule.
 */
export type FireLock = (name: string, fire: () => Promise<void>) => Promise<boolean>;

export interface SchedulerDeps {
  store: ScheduleStore;
  /** Several processes share the schedules (PostgreSQL): see FireLock and `rearm`. None: this process alone. */
  fireLock?: FireLock;
  /** Starts a run the way a REST create does, with the idempotency key of this (schedule, fire time). */
  start: (schedule: ScheduleRecord, fireAt: number, key: string) => Promise<{ instanceId: string }>;
  statusOf: (instanceId: string) => Promise<InstanceStatus | null>;
  stop: (instanceId: string) => Promise<unknown>;
  now?: () => number;
}

/** The key a fire starts its run with: a restart at the fire moment finds the run already made. */
export const fireKey = (name: string, fireAt: number): string => `schedule:${name}:${new Date(fireAt).toISOString()}`;

const ACTIVE: ReadonlySet<InstanceStatus> = new Set(["running", "paused"]);
// Past this much lateness (a stalled process), the next fire is counted from now, not from the last fire.
const CATCH_UP_LIMIT_MS = 60_000;
// With several processes, a schedule due this recently when a process starts is fired as a late fire:
// the process whose timer is about to fire it may be alive (see `startOverdue`).
const LATE_NOT_MISSED_MS = 5_000;
// How long a change waits for a fire of its schedule (in any process) to end, trying the lock this often.
const CHANGE_WAIT_MS = 10_000;
const CHANGE_RETRY_MS = 50;

/** What a change makes of a schedule's row: this record, no row, or (null) the row as it is. */
export type ScheduleEdit = (current: ScheduleRecord | null) => ScheduleRecord | "remove" | null;

/**
 * Fires due schedules. Each schedule's row holds its next due fire (`next_fire_at`), committed before
 * the timer is armed; a fire starts the run (instance and idempotency key in one commit), then moves
 * the row to the next fire. A crash between the two leaves the fire due: at start-up it counts as
 * missed, and `run_once` starts it with the same key (so the run made before the crash is found, not
 * made twice) while `skip` drops it. Several processes on one database fire each due schedule once: a
 * fire runs under a FireLock (PostgreSQL: an advisory lock per schedule) and re-reads the row inside it.
 */
export class Scheduler {
  private readonly timers: TimerQueue;
  private readonly now: () => number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Schedules this process is firing now (under the fire lock). */
  private readonly firing = new Set<string>();
  private started = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.now = deps.now ?? Date.now;
    this.timers = new TimerQueue((name, dueAt) => this.track(this.fireOnce(name, dueAt)), this.now);
  }

  get pending(): number {
    return this.timers.size;
  }

  /** Start-up: handle fires missed while no server ran, then arm every schedule's timer. */
  async start(): Promise<void> {
    this.started = true;
    for (const schedule of await this.deps.store.list()) await this.startOne(schedule);
  }

  stop(): void {
    this.started = false;
    this.timers.stop();
  }

  /** Fires in progress, for tests and shutdown. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * With several processes (a FireLock): arms every timer from the table, so a schedule another process
   * made, changed or fired, or one whose fire it held when this process's timer came, is picked up.
   * Called periodically (with the spec sync); a fire in progress here is left alone.
   */
  async rearm(): Promise<void> {
    if (!this.started) return;
    for (const schedule of await this.deps.store.list()) {
      if (this.firing.has(schedule.name)) continue;
      if (schedule.paused || schedule.nextFireAt === null) this.timers.cancel(schedule.name);
      else if (this.timers.dueAtOf(schedule.name) !== schedule.nextFireAt) this.timers.set(schedule.name, schedule.nextFireAt);
    }
  }

  /** Re-reads one schedule after a change (created, edited, paused, resumed, removed). */
  async refresh(name: string): Promise<void> {
    const schedule = await this.deps.store.get(name);
    if (!schedule || schedule.paused || schedule.nextFireAt === null) this.timers.cancel(name);
    else if (this.started) this.timers.set(name, schedule.nextFireAt);
  }

  /**
   * A change of a schedule's row (made, edited, paused, resumed, removed, or its spec's declaration
   * changed) from the row as it is, then its timer re-armed. With several processes the read and the
   * write run under the schedule's fire lock, waited for while a fire holds it (here or elsewhere): a
   * fire reads the row and saves its outcome and next fire under that lock, so neither overwrites the
   * other's fields with a row it read before (a definition reverted, a pause undone, a fire's outcome
   * lost). A fire that holds the lock past CHANGE_WAIT_MS fails the change (try again).
   */
  async change(name: string, edit: ScheduleEdit): Promise<void> {
    const apply = async () => {
      const next = edit(await this.deps.store.get(name));
      if (next === "remove") await this.deps.store.remove(name);
      else if (next) await this.deps.store.put(next);
    };
    const lock = this.deps.fireLock;
    if (!lock) await apply();
    else {
      const end = Date.now() + CHANGE_WAIT_MS;
      while (!(await lock(name, apply))) {
        if (Date.now() > end) throw new ServiceError("PEER_UNAVAILABLE", `schedule ${name} is being fired for longer than ${CHANGE_WAIT_MS} ms: try again`);
        await new Promise((r) => setTimeout(r, CHANGE_RETRY_MS));
      }
    }
    await this.refresh(name);
  }

  /** The first fire of a new or resumed schedule: the next one after now. */
  firstFire(schedule: Pick<ScheduleRecord, "cron" | "timezone">): number | null {
    return nextFire(schedule, this.now());
  }

  private async startOne(schedule: ScheduleRecord): Promise<void> {
    if (schedule.paused) return;
    const now = this.now();
    if (schedule.nextFireAt === null) {
      await this.save({ ...schedule, nextFireAt: nextFire(schedule, now) });
    } else if (schedule.nextFireAt <= now) {
      const lock = this.deps.fireLock;
      if (!lock) return this.startOverdue(schedule);
      // Another process may be firing it right now (its timer came as this one started): decided under
      // the fire lock, from the row as it is then. Not taken: that process fires it and moves the row on.
      this.firing.add(schedule.name);
      try {
        if (await lock(schedule.name, async () => this.startOverdue(await this.deps.store.get(schedule.name)))) return;
      } finally {
        this.firing.delete(schedule.name);
      }
    }
    await this.refresh(schedule.name);
  }

  /**
   * A schedule found overdue at start-up: its missed fires are handled by its `missed` policy. With
   * several processes, one due less than LATE_NOT_MISSED_MS ago is a late fire, not a missed one: a
   * live process's timer for it may just not have come yet, and skipping it would lose that fire.
   */
  private async startOverdue(schedule: ScheduleRecord | null): Promise<void> {
    const now = this.now();
    if (!schedule || schedule.paused || schedule.nextFireAt === null || schedule.nextFireAt > now) {
      if (schedule) await this.refresh(schedule.name); // fired or changed meanwhile: follow the row
      return;
    }
    const latest = latestFireBetween(schedule, schedule.nextFireAt, now);
    if (this.deps.fireLock && latest === schedule.nextFireAt && now - latest < LATE_NOT_MISSED_MS) return this.fire(schedule.name, latest);
    if (schedule.missed === "run_once") return this.fire(schedule.name, latest, " (missed while no server ran)");
    await this.save({ ...schedule, nextFireAt: nextFire(schedule, now), lastOutcome: `skipped: due ${new Date(latest).toISOString()} while no server ran` });
    await this.refresh(schedule.name);
  }

  /** A fire, under the fire lock when several processes share the schedules. */
  private async fireOnce(name: string, fireAt: number, note = ""): Promise<void> {
    const lock = this.deps.fireLock;
    if (!lock) return this.fire(name, fireAt, note);
    this.firing.add(name);
    try {
      // Not taken: another process fires it now, and `rearm` arms its next fire once the row moves on.
      await lock(name, () => this.fire(name, fireAt, note));
    } finally {
      this.firing.delete(name);
    }
  }

  private async fire(name: string, fireAt: number, note = ""): Promise<void> {
    const schedule = await this.deps.store.get(name);
    if (!schedule || schedule.paused || schedule.nextFireAt === null || schedule.nextFireAt > fireAt) {
      // Fired (or changed) by another process since this timer was armed: follow the row.
      if (this.deps.fireLock) await this.refresh(name);
      return;
    }
    let outcome: string;
    let lastInstanceId = schedule.lastInstanceId;
    try {
      const previous = schedule.lastInstanceId;
      const previousStatus = previous ? await this.deps.statusOf(previous) : null;
      const busy = previous !== null && previousStatus !== null && ACTIVE.has(previousStatus);
      if (busy && schedule.overlap === "skip") {
        outcome = `skipped: ${previous} is still ${previousStatus}`;
      } else {
        if (busy && schedule.overlap === "cancel_previous") await this.deps.stop(previous!);
        const { instanceId } = await this.deps.start(schedule, fireAt, fireKey(name, fireAt));
        lastInstanceId = instanceId;
        outcome = (busy && schedule.overlap === "cancel_previous" ? `stopped ${previous}, started` : "started") + note;
      }
    } catch (error) {
      outcome = `failed: ${(error as Error).message}`;
    }
    const now = this.now();
    const current = await this.deps.store.get(name);
    if (!current) return; // removed meanwhile
    const after = now - fireAt > CATCH_UP_LIMIT_MS ? now : fireAt;
    await this.save({ ...current, lastFireAt: fireAt, lastOutcome: outcome, lastInstanceId, nextFireAt: current.paused ? null : nextFire(current, after) });
    await this.refresh(name);
  }

  private async save(schedule: ScheduleRecord): Promise<void> {
    await this.deps.store.put({ ...schedule, updatedAt: this.now() });
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error) => console.error("[modex] a schedule fire failed:", error)).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }
}
