import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { PgSpecStore } from "../pg-spec-store";
import { SpecService } from "../spec-service";
import { scheduleDeclaringSpec } from "../testing/schedule-declaring-spec";
import { scheduleRecord } from "../testing/trigger-stores.conformance";
import { pgFireLock } from "./pg-fire-lock";
import { PgScheduleStore } from "./pg-schedule-store";
import { ScheduleService } from "./schedule-service";
import { fireKey, Scheduler } from "./scheduler";

/** Several web processes on one PostgreSQL database, each with its own scheduler: one fires each due schedule. */
describe("schedulers of several processes on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  it("three schedulers, one per-second schedule: every due fire starts one run, whichever process took it", async () => {
    const starts = new Map<string, number>(); // fire key → starts (no Idempotency-Key here to hide a second one)
    const processes = [1, 2, 3].map((n) => {
      const { acks } = database.open();
      const store = new PgScheduleStore(acks);
      const scheduler = new Scheduler({
        store,
        fireLock: pgFireLock(acks),
        start: async (_s, _fireAt, key) => {
          starts.set(key, (starts.get(key) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 30)); // the run being made
          return { instanceId: `${key}@${n}` };
        },
        statusOf: async () => null,
        stop: async () => undefined,
      });
      return { store, scheduler };
    });
    const first = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    await processes[0].store.put(scheduleRecord("tick", { cron: "* * * * * *", timezone: "UTC", overlap: "allow", nextFireAt: first }));
    await Promise.all(processes.map((p) => p.scheduler.start()));
    // Until the third fire is due (the first is 1–2 s away) and half a second more for its run.
    await new Promise((r) => setTimeout(r, first + 2_000 + 500 - Date.now()));
    for (const p of processes) p.scheduler.stop();
    await Promise.all(processes.map((p) => p.scheduler.idle()));

    expect(starts.size).toBeGreaterThanOrEqual(3);
    expect([...starts.values()].every((n) => n === 1)).toBe(true);
    expect([...starts.keys()].slice(0, 3)).toEqual([0, 1, 2].map((i) => fireKey("tick", first + i * 1000)));
    const row = (await processes[1].store.get("tick"))!;
    expect(row.lastOutcome).toBe("started");
    expect(row.nextFireAt).toBeGreaterThan(row.lastFireAt!);
  });

  it("a process whose timer came while another held the fire picks the schedule up again from the table (rearm)", async () => {
    const { acks } = database.open();
    await acks.query("TRUNCATE trigger_schedules");
    const store = new PgScheduleStore(acks);
    const lock = pgFireLock(acks);
    const started: string[] = [];
    const scheduler = new Scheduler({ store, fireLock: lock, start: async (_s, _f, key) => (started.push(key), { instanceId: key }), statusOf: async () => null, stop: async () => undefined });
    const due = Math.ceil(Date.now() / 1000) * 1000 + 600_000; // far off: no timer fires in this test
    await store.put(scheduleRecord("elsewhere", { cron: "*/10 * * * *", timezone: "UTC", nextFireAt: due }));
    await scheduler.start();
    // Another process moves the schedule on (it fired, or someone edited it there).
    await new PgScheduleStore(database.open().acks).put(scheduleRecord("elsewhere", { cron: "*/10 * * * *", timezone: "UTC", nextFireAt: due + 600_000 }));
    await scheduler.rearm();
    expect((scheduler as unknown as { timers: { dueAtOf(k: string): number | undefined } }).timers.dueAtOf("elsewhere")).toBe(due + 600_000);
    // While another process holds its fire, a fire here does not run.
    const other = pgFireLock(database.open().acks);
    let inside: () => void = () => {};
    let leave: () => void = () => {};
    const held = other("elsewhere", () => new Promise<void>((r) => ((leave = r), inside())));
    await new Promise<void>((r) => (inside = r));
    expect(await lock("elsewhere", async () => void started.push("ran"))).toBe(false);
    leave();
    expect(await held).toBe(true);
    expect(await lock("elsewhere", async () => void started.push("ran"))).toBe(true);
    expect(started).toEqual(["ran"]);
    scheduler.stop();
  });

  it("a process starting while another fires a due schedule (missed: skip) leaves that fire to it: one run, not skipped", async () => {
    const { acks } = database.open();
    await acks.query("TRUNCATE trigger_schedules");
    const starts: string[] = [];
    const schedulerOf = (store: PgScheduleStore) =>
      new Scheduler({ store, fireLock: pgFireLock(acks), start: async (_s, _f, key) => (starts.push(key), { instanceId: key }), statusOf: async () => null, stop: async () => undefined });
    // Process A is up; its fire reads the row under the fire lock only once B has started.
    let inside: () => void = () => {};
    const insideFire = new Promise<void>((r) => (inside = r));
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let firing = false;
    const due = Date.now() + 500;
    const storeA = new PgScheduleStore(acks);
    const gated = Object.assign(Object.create(storeA) as PgScheduleStore, {
      get: async (name: string) => {
        if (!firing && Date.now() >= due) {
          firing = true;
          inside();
          await gate;
        }
        return storeA.get(name);
      },
    });
    await storeA.put(scheduleRecord("nightly", { cron: "*/10 * * * *", timezone: "UTC", missed: "skip", overlap: "allow", nextFireAt: due }));
    const a = schedulerOf(gated);
    await a.start();
    await insideFire; // A's timer came: it holds the fire lock
    const b = schedulerOf(new PgScheduleStore(database.open().acks));
    await b.start(); // the fire is due as B starts: not one missed while no server ran
    release();
    await a.idle();
    await b.idle();
    a.stop();
    b.stop();
    expect(starts).toEqual([fireKey("nightly", due)]);
    const row = (await storeA.get("nightly"))!;
    expect(row).toMatchObject({ lastFireAt: due, lastOutcome: "started" });
    expect(row.nextFireAt).toBeGreaterThan(due);
  });

  it("a process starting just after a schedule came due, with no other process to fire it, fires it late (missed: skip is for fires due while no server ran)", async () => {
    const { acks } = database.open();
    await acks.query("TRUNCATE trigger_schedules");
    const store = new PgScheduleStore(acks);
    const starts: string[] = [];
    const due = Date.now() - 1_000;
    await store.put(scheduleRecord("hourly", { cron: "0 * * * *", timezone: "UTC", missed: "skip", overlap: "allow", nextFireAt: due }));
    const scheduler = new Scheduler({ store, fireLock: pgFireLock(acks), start: async (_s, _f, key) => (starts.push(key), { instanceId: key }), statusOf: async () => null, stop: async () => undefined });
    await scheduler.start();
    await scheduler.idle();
    scheduler.stop();
    expect(starts).toEqual([fireKey("hourly", due)]);
    expect((await store.get("hourly"))!).toMatchObject({ lastFireAt: due, lastOutcome: "started" });
  });

  it("a spec's changed declaration synced while another process fires that schedule keeps the fire's outcome and next fire, and the fire keeps the change", async () => {
    const { acks } = database.open();
    await acks.query("TRUNCATE trigger_schedules");
    const specs = new SpecService(new PgSpecStore(acks));
    await specs.saveAsync(scheduleDeclaringSpec("declaring", ['{ name: ticker, cron: "* * * * * *", overlap: allow, input: { n: 1 } }']));
    // Process A fires the schedule; its run's start waits at a gate.
    let inside: () => void = () => {};
    const insideFire = new Promise<void>((r) => (inside = r));
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const starts: string[] = [];
    const storeA = new PgScheduleStore(acks);
    const schedulerA = new Scheduler({
      store: storeA,
      fireLock: pgFireLock(acks),
      start: async (_s, _f, key) => (starts.push(key), inside(), await gate, { instanceId: key }),
      statusOf: async () => null,
      stop: async () => undefined,
    });
    await new ScheduleService({ store: storeA, scheduler: schedulerA, specs }).syncSpecs();
    await schedulerA.start();
    await insideFire;
    schedulerA.stop(); // this fire is the only one
    // Process B syncs the spec's next revision (the input changed, not the timing). Its write lands
    // after A's fire saved, as it may when B read the row before that save.
    await specs.saveAsync(scheduleDeclaringSpec("declaring", ['{ name: ticker, cron: "* * * * * *", overlap: allow, input: { n: 2 } }']));
    let saved: () => void = () => {};
    const firedSaved = new Promise<void>((r) => (saved = r));
    const put = storeA.put.bind(storeA);
    storeA.put = async (record) => (await put(record), saved());
    let read: () => void = () => {};
    const readByB = new Promise<void>((r) => (read = r));
    const storeB = new PgScheduleStore(database.open().acks);
    const gatedB = Object.assign(Object.create(storeB) as PgScheduleStore, {
      get: async (name: string) => (read(), storeB.get(name)),
      put: async (record: Parameters<PgScheduleStore["put"]>[0]) => (await firedSaved, storeB.put(record)),
    });
    const schedulerB = new Scheduler({ store: gatedB, fireLock: pgFireLock(database.open().acks), start: async () => ({ instanceId: "b" }), statusOf: async () => null, stop: async () => undefined });
    const syncing = new ScheduleService({ store: gatedB, scheduler: schedulerB, specs }).syncSpecs();
    await Promise.race([readByB, new Promise((r) => setTimeout(r, 2_000))]); // B reads now, or waits for the fire
    release();
    await schedulerA.idle();
    await syncing;
    expect(starts).toHaveLength(1);
    const row = (await storeA.get("ticker"))!;
    expect(row).toMatchObject({ input: { n: 2 }, lastOutcome: "started", lastInstanceId: starts[0] });
    expect(fireKey("ticker", row.lastFireAt!)).toBe(starts[0]);
    expect(row.nextFireAt).toBeGreaterThan(row.lastFireAt!);
  });
});

