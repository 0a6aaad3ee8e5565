import { ScheduleSpecSchema, type ScheduleSpec } from "@/server/graph/spec/schedule-spec";
import { ServiceError, notFound } from "@/server/services/errors";
import type { SpecService } from "@/server/services/spec-service";
import { checkCron, nextFires } from "./cron";
import type { Scheduler } from "./scheduler";
import type { MissedPolicy, OverlapPolicy, ScheduleRecord, ScheduleStore } from "./schedule-store";

export interface ScheduleView extends ScheduleRecord {
  /** The next fire times (ms), up to five; empty while paused. */
  nextFires: number[];
}

export interface ScheduleInput {
  name: string;
  spec: string;
  cron: string;
  timezone?: string;
  input?: unknown;
  overlap?: OverlapPolicy;
  missed?: MissedPolicy;
  paused?: boolean;
}

const SHOWN_FIRES = 5;
// A spec's YAML without this key declares no schedule: it is not compiled just to find out.
const DECLARES_SCHEDULES = /^schedules\s*:/m;

/**
 * Schedules as people and specs make them: made in the app (saved, paused, resumed, removed here) or
 * declared in a spec's `schedules:` block (kept in step with the spec's latest revision; pause and
 * resume apply, editing and removing are done in the spec). Each change commits, then re-arms its timer.
 */
export class ScheduleService {
  /** Spec name → the revision whose declarations the table holds. */
  private readonly synced = new Map<string, string>();

  constructor(
    private readonly deps: { store: ScheduleStore; scheduler: Scheduler; specs: SpecService; now?: () => number },
  ) {}

  async list(): Promise<ScheduleView[]> {
    await this.syncSpecs();
    return (await this.deps.store.list()).map((s) => this.view(s));
  }

  async get(name: string): Promise<ScheduleView> {
    return this.view(await this.require(name));
  }

  /** Creates or replaces a schedule made in the app. */
  async save(input: ScheduleInput): Promise<ScheduleView> {
    const parsed = parseDeclaration(input);
    await this.deps.specs.resolve(input.spec); // NOT_FOUND for an unknown spec
    await this.syncSpecs(); // a schedule a spec declared since the last sync is found declared, not replaced
    await this.deps.scheduler.change(parsed.name, (existing) => {
      if (existing?.declaredIn) {
        throw new ServiceError("BAD_REQUEST", `schedule ${parsed.name} is declared in spec ${existing.declaredIn}: change it there`);
      }
      return this.defined(parsed, input.spec, null, existing);
    });
    return this.get(parsed.name);
  }

  async pause(name: string): Promise<ScheduleView> {
    await this.require(name);
    await this.deps.scheduler.change(name, (schedule) => schedule && { ...schedule, paused: true, nextFireAt: null, updatedAt: this.now() });
    return this.get(name);
  }

  /** Resumes from now: fires missed while paused are not made up. */
  async resume(name: string): Promise<ScheduleView> {
    await this.require(name);
    await this.deps.scheduler.change(name, (schedule) =>
      schedule?.paused ? { ...schedule, paused: false, nextFireAt: this.deps.scheduler.firstFire(schedule), updatedAt: this.now() } : null,
    );
    return this.get(name);
  }

  async remove(name: string): Promise<{ name: string; removed: true }> {
    await this.require(name);
    await this.deps.scheduler.change(name, (schedule) => {
      if (schedule?.declaredIn) {
        throw new ServiceError("BAD_REQUEST", `schedule ${name} is declared in spec ${schedule.declaredIn}: remove it from the spec (or pause it)`);
      }
      return "remove";
    });
    return { name, removed: true };
  }

  /**
   * Brings the declared schedules in line with each spec's latest revision (cheap when nothing changed:
   * the spec list is kept with its rows). Called at start-up, before lists, and periodically.
   */
  async syncSpecs(): Promise<void> {
    // Archived specs too: archiving only hides a spec from lists, its schedules still follow it.
    const specs = await this.deps.specs.list({ archived: "include" });
    await this.dropOrphans(new Set(specs.map((s) => s.name)));
    for (const spec of specs) {
      if (this.synced.get(spec.name) === spec.specId) continue;
      this.synced.set(spec.name, spec.specId);
      try {
        await this.syncSpec(spec.name, await this.declaredBy(spec.specId));
      } catch (error) {
        console.warn(`[modex] the schedules of spec ${spec.name} were not applied: ${(error as Error).message}`);
      }
    }
  }

  /**
   * Removes the schedules declared by specs that no longer exist (deleted): nothing else could, since a
   * declared schedule is removed only from its spec. Looked for at the first sync (rows left by a
   * deletion before this process started) and whenever a spec synced before is gone. The rows are
   * read after `present` was listed, and each is removed only if it is still declared by a spec
   * missing from the list read again now, so a spec saved meanwhile (by another process) keeps its
   * schedules.
   */
  private async dropOrphans(present: ReadonlySet<string>): Promise<void> {
    const gone = [...this.synced.keys()].filter((name) => !present.has(name));
    if (this.orphansChecked && gone.length === 0) return;
    for (const name of gone) this.synced.delete(name);
    const orphans = (await this.deps.store.list()).filter((row) => row.declaredIn !== null && !present.has(row.declaredIn));
    if (orphans.length === 0) {
      this.orphansChecked = true;
      return;
    }
    const now = new Set((await this.deps.specs.list({ archived: "include" })).map((s) => s.name));
    for (const row of orphans) {
      if (now.has(row.declaredIn!)) continue;
      await this.deps.scheduler.change(row.name, (current) => (current?.declaredIn === row.declaredIn ? "remove" : null));
    }
    this.orphansChecked = true;
  }

  private orphansChecked = false;

  private async declaredBy(specId: string): Promise<ScheduleSpec[]> {
    if (!DECLARES_SCHEDULES.test((await this.deps.specs.get(specId)).yaml)) return [];
    return (await this.deps.specs.compile(await this.deps.specs.resolve(specId))).spec.schedules ?? [];
  }

  /** Each change is made from the row as it is then (Scheduler.change: a fire's fields are not overwritten). */
  private async syncSpec(specName: string, declared: readonly ScheduleSpec[]): Promise<void> {
    const names = new Set(declared.map((d) => d.name));
    for (const row of await this.deps.store.list()) {
      if (row.declaredIn === specName && !names.has(row.name)) {
        await this.deps.scheduler.change(row.name, (current) => (current?.declaredIn === specName ? "remove" : null));
      }
    }
    for (const declaration of declared) {
      await this.deps.scheduler.change(declaration.name, (existing) => {
        if (existing && existing.declaredIn !== specName) {
          console.warn(`[modex] spec ${specName} declares schedule ${declaration.name}, which ${existing.declaredIn ? `spec ${existing.declaredIn} declares` : "was made in the app"}: not applied`);
          return null;
        }
        checkCron(declaration);
        return this.defined(declaration, specName, specName, existing);
      });
    }
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** A definition's row, or null when it is unchanged; a changed one keeps its history and pause. */
  private defined(d: ScheduleSpec, spec: string, declaredIn: string | null, existing: ScheduleRecord | null): ScheduleRecord | null {
    const now = this.now();
    const same =
      existing &&
      existing.spec === spec &&
      existing.cron === d.cron &&
      existing.timezone === d.timezone &&
      JSON.stringify(existing.input) === JSON.stringify(d.input ?? null) &&
      existing.overlap === d.overlap &&
      existing.missed === d.missed &&
      (declaredIn !== null || existing.paused === d.paused);
    if (same) return null;
    // A declared schedule keeps a pause made in the app across edits of its spec.
    const paused = declaredIn !== null && existing ? existing.paused : d.paused;
    const timingChanged = !existing || existing.cron !== d.cron || existing.timezone !== d.timezone || existing.paused !== paused;
    return {
      name: d.name,
      spec,
      cron: d.cron,
      timezone: d.timezone,
      input: d.input ?? null,
      overlap: d.overlap,
      missed: d.missed,
      paused,
      declaredIn,
      nextFireAt: paused ? null : timingChanged ? this.deps.scheduler.firstFire(d) : existing!.nextFireAt,
      lastFireAt: existing?.lastFireAt ?? null,
      lastOutcome: existing?.lastOutcome ?? null,
      lastInstanceId: existing?.lastInstanceId ?? null,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /**
   * The schedule, after syncing the specs' declarations: one a spec declared a moment ago is found (and
   * one it dropped is gone) without waiting for the periodic sync.
   */
  private async require(name: string): Promise<ScheduleRecord> {
    await this.syncSpecs();
    const schedule = await this.deps.store.get(name);
    if (!schedule) throw notFound("schedule", name);
    return schedule;
  }

  private view(schedule: ScheduleRecord): ScheduleView {
    const from = Math.max(schedule.nextFireAt ?? 0, 0);
    const fires = schedule.paused || schedule.nextFireAt === null ? [] : [schedule.nextFireAt, ...nextFires(schedule, from, SHOWN_FIRES - 1)];
    return { ...schedule, nextFires: fires };
  }
}

/** The spec format's own schema checks what the app is given, then the cron parser reads the expression. */
function parseDeclaration(input: ScheduleInput): ScheduleSpec {
  const { spec: _spec, ...declaration } = input;
  const parsed = ScheduleSpecSchema.safeParse(declaration);
  if (!parsed.success) {
    throw new ServiceError("BAD_REQUEST", parsed.error.issues.map((i) => `${i.path.join(".") || "schedule"}: ${i.message}`).join("; "));
  }
  checkCron(parsed.data);
  return parsed.data;
}
