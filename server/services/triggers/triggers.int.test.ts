import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { scheduleDeclaringSpec } from "@/server/services/testing/schedule-declaring-spec";
import { testServices, type TestServices } from "@/server/services/testing/test-services";
import { signBody, SIGNATURE_HEADER } from "./hook-auth";
import { fireKey, Scheduler } from "./scheduler";
import { SqliteScheduleStore } from "./schedule-store";
import { startedByOf } from "./started-by";

/** Schedules and hooks on a real SQLite file, through the app's services (runs are real runs). */

let current: TestServices | null = null;
afterEach(async () => {
  current?.services.triggers.end();
  await current?.[Symbol.asyncDispose]();
  current = null;
});

function open(): TestServices {
  current = testServices("sqlite");
  return current;
}

/** Rows as another connection sees them: only what is committed. */
function committed(t: TestServices, sql: string): unknown[] {
  const other = new BetterSqlite3(t.databaseFile!, { readonly: true });
  try {
    return other.prepare(sql).all();
  } finally {
    other.close();
  }
}

async function runsOf(t: TestServices, name: string) {
  const all = await t.services.orchestrator.coordinator.instances.list({ limit: 500 });
  return all.filter((i) => (startedByOf(i) as { name?: string } | null)?.name === name);
}

const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 8_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe("schedules", () => {
  it("a per-second schedule starts runs marked with what started them; pause stops it, resume starts again", async () => {
    const t = open();
    await t.services.triggers.begin(60_000);
    const made = await t.services.triggers.schedules.save({ name: "tick", spec: "counter-loop", cron: "* * * * * *", overlap: "allow", input: { n: 1 } });
    expect(made.nextFires).toHaveLength(5);
    expect(made.nextFires[1] - made.nextFires[0]).toBe(1000);
    // committed before the answer: another connection sees the row
    expect(committed(t, "SELECT name, next_fire_at FROM trigger_schedules")).toEqual([{ name: "tick", next_fire_at: made.nextFireAt }]);
    await until(async () => (await runsOf(t, "tick")).length >= 2);
    const [run] = await runsOf(t, "tick");
    expect(startedByOf(run)).toMatchObject({ kind: "schedule", name: "tick" });
    expect(await t.services.triggers.startedBy(run.instanceId)).toMatchObject({ kind: "schedule", name: "tick" });
    const paused = await t.services.triggers.schedules.pause("tick");
    expect(paused.nextFires).toEqual([]);
    await t.services.triggers.scheduler.idle();
    const count = (await runsOf(t, "tick")).length;
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await runsOf(t, "tick")).length).toBe(count);
    await t.services.triggers.schedules.resume("tick");
    await until(async () => (await runsOf(t, "tick")).length > count);
  });

  it("overlap skip: a fire while the previous run waits for a person is skipped and says so", async () => {
    const t = open();
    await t.services.triggers.begin(60_000);
    await t.services.triggers.schedules.save({ name: "gate", spec: "approval-gate", cron: "* * * * * *", overlap: "skip", input: "v1" });
    await until(async () => /skipped/.test((await t.services.triggers.schedules.get("gate")).lastOutcome ?? ""), 6_000);
    expect((await runsOf(t, "gate")).length).toBe(1);
  });

  it("overlap cancel_previous stops the waiting run before it starts the next", async () => {
    const t = open();
    await t.services.triggers.begin(60_000);
    await t.services.triggers.schedules.save({ name: "gate2", spec: "approval-gate", cron: "* * * * * *", overlap: "cancel_previous", input: "v1" });
    await until(async () => (await runsOf(t, "gate2")).length >= 2, 6_000);
    await t.services.triggers.schedules.pause("gate2");
    await t.services.triggers.scheduler.idle();
    const runs = await runsOf(t, "gate2");
    expect(runs.filter((r) => r.status === "stopped").length).toBeGreaterThanOrEqual(1);
  });

  it("a fire due while no server ran: run_once starts it once with its key, a run made before a crash is not made again", async () => {
    const t = open();
    // The app's own connection (TestServices keeps it private): the schedule rows as the server wrote them.
    const store = new SqliteScheduleStore((t as unknown as { temp: { db: BetterSqlite3.Database } }).temp.db);
    const due = Math.floor(Date.now() / 60_000) * 60_000 - 60_000; // a minute boundary in the past
    const base = { spec: "counter-loop", cron: "* * * * *", timezone: "UTC", input: null, overlap: "allow" as const, paused: false, declaredIn: null, lastFireAt: null, lastOutcome: null, lastInstanceId: null, createdAt: due, updatedAt: due };
    store.put({ ...base, name: "once", missed: "run_once", nextFireAt: due });
    store.put({ ...base, name: "dropped", missed: "skip", nextFireAt: due });
    // The crash: "once" fired at `due` and its run committed, but the row still says `due`.
    const latest = Math.floor(Date.now() / 60_000) * 60_000;
    await t.services.triggers.start({ spec: "counter-loop" }, fireKey("once", latest), { kind: "schedule", name: "once", fireAt: latest });
    // The restart: a new scheduler over the same table.
    const scheduler = new Scheduler({
      store,
      start: async (s, fireAt, key) => t.services.triggers.start({ spec: s.spec }, key, { kind: "schedule", name: s.name, fireAt }),
      statusOf: async () => null,
      stop: async () => undefined,
    });
    await scheduler.start();
    scheduler.stop();
    expect((await runsOf(t, "once")).length).toBe(1);
    expect(store.get("once")!.lastOutcome).toMatch(/started \(missed/);
    expect(store.get("once")!.nextFireAt).toBeGreaterThan(Date.now());
    expect((await runsOf(t, "dropped")).length).toBe(0);
    expect(store.get("dropped")!.lastOutcome).toMatch(/^skipped: due/);
  });

  it("schedules declared in a spec are stored, follow the spec's edits, and cannot be removed from the app", async () => {
    const t = open();
    const nightly = (cron: string) => `{ name: nightly, cron: "${cron}", timezone: Europe/Paris, input: { from: cron }, missed: run_once }`;
    t.services.specs.save(scheduleDeclaringSpec("nightly-count", [nightly("0 2 * * *")]));
    const [declared] = await t.services.triggers.schedules.list();
    expect(declared).toMatchObject({ name: "nightly", spec: "nightly-count", declaredIn: "nightly-count", timezone: "Europe/Paris", missed: "run_once", overlap: "skip" });
    // 02:00 in Paris is 01:00 UTC in winter
    expect(new Date(declared.nextFires[0]).getUTCHours()).toBe(1);
    await expect(t.services.triggers.schedules.remove("nightly")).rejects.toThrow(/declared in spec nightly-count/);
    t.services.specs.save(scheduleDeclaringSpec("nightly-count", [nightly("30 3 * * *"), '{ name: hourly, cron: "0 * * * *" }']));
    expect((await t.services.triggers.schedules.list()).map((s) => [s.name, s.cron])).toEqual([["hourly", "0 * * * *"], ["nightly", "30 3 * * *"]]);
    t.services.specs.save(scheduleDeclaringSpec("nightly-count", []));
    expect(await t.services.triggers.schedules.list()).toEqual([]);
  });

  it("a deleted spec's declared schedules go with it; an archived spec's still follow its edits", async () => {
    const t = open();
    t.services.specs.save(scheduleDeclaringSpec("doomed", ['{ name: doomed-tick, cron: "0 * * * *" }']));
    t.services.specs.save(scheduleDeclaringSpec("hidden", ['{ name: hidden-tick, cron: "0 * * * *" }']));
    expect((await t.services.triggers.schedules.list()).map((s) => s.name)).toEqual(["doomed-tick", "hidden-tick"]);
    await t.services.specs.delete("doomed");
    // Nothing else could remove it: a declared schedule is changed and removed only in its spec.
    await expect(t.services.triggers.schedules.get("doomed-tick")).rejects.toThrow(/not found/);
    expect(committed(t, "SELECT name FROM trigger_schedules")).toEqual([{ name: "hidden-tick" }]);
    await t.services.specs.archive("hidden");
    t.services.specs.save(scheduleDeclaringSpec("hidden", ['{ name: hidden-tick, cron: "30 * * * *" }']));
    expect((await t.services.triggers.schedules.list()).map((s) => [s.name, s.cron])).toEqual([["hidden-tick", "30 * * * *"]]);
  });

  it("a spec a webhook or an app-made schedule starts is not deleted from under it (409 naming them)", async () => {
    const t = open();
    t.services.specs.save(scheduleDeclaringSpec("hooked", []));
    const revision = (await t.services.specs.get("hooked")).specId;
    await t.services.triggers.hooks.create({ name: "push", spec: "hooked" });
    await t.services.triggers.schedules.save({ name: "nightly", spec: revision, cron: "0 2 * * *" });
    await expect(t.services.specs.delete("hooked")).rejects.toMatchObject({ code: "INVALID_STATE", message: expect.stringMatching(/webhook push, schedule nightly: delete them first/) });
    await t.services.triggers.hooks.remove("push");
    await t.services.triggers.schedules.remove("nightly");
    expect(await t.services.specs.delete("hooked")).toEqual({ name: "hooked", deleted: 1 });
  });

  it("refuses a bad cron expression, an unknown time zone and an unknown spec", async () => {
    const t = open();
    await expect(t.services.triggers.schedules.save({ name: "x", spec: "counter-loop", cron: "61 * * * *" })).rejects.toThrow(/cron/);
    await expect(t.services.triggers.schedules.save({ name: "x", spec: "counter-loop", cron: "0 0 30 2 *" })).rejects.toThrow(/never fires/);
    await expect(t.services.triggers.schedules.save({ name: "x", spec: "counter-loop", cron: "0 * * * *", timezone: "Mars/Olympus" })).rejects.toThrow(/time zone/);
    await expect(t.services.triggers.schedules.save({ name: "x", spec: "nope", cron: "0 * * * *" })).rejects.toThrow(/not found/);
    expect(await t.services.triggers.schedules.list()).toEqual([]);
  });
});

describe("hooks", () => {
  it("create shows the secret once; HMAC and bearer checks; rotate retires the old secret; the rate limit counts every call", async () => {
    const t = open();
    const hooks = t.services.triggers.hooks;
    const made = await hooks.create({ name: "push", spec: "counter-loop", ratePerMinute: 3 });
    expect(made.secret).toHaveLength(43);
    expect(JSON.stringify(await hooks.list())).not.toContain(made.secret);
    const hook = (await hooks.get("push"))!;
    const body = '{"ref":"main"}';
    expect(hooks.authorized(hook, new Headers({ [SIGNATURE_HEADER]: signBody(made.secret, body) }), body)).toBe(true);
    expect(hooks.authorized(hook, new Headers({ [SIGNATURE_HEADER]: signBody(made.secret, body + " ") }), body)).toBe(false);
    expect(hooks.authorized(hook, new Headers({ authorization: `Bearer ${made.secret}` }), body)).toBe(false); // an hmac hook wants a signature
    const rotated = await hooks.rotate("push");
    expect(hooks.authorized((await hooks.get("push"))!, new Headers({ [SIGNATURE_HEADER]: signBody(made.secret, body) }), body)).toBe(false);
    expect(hooks.authorized((await hooks.get("push"))!, new Headers({ [SIGNATURE_HEADER]: signBody(rotated.secret, body) }), body)).toBe(true);
    const bearer = await hooks.create({ name: "plain", spec: "counter-loop", auth: "bearer" });
    expect(hooks.authorized((await hooks.get("plain"))!, new Headers({ authorization: `Bearer ${bearer.secret}` }), "")).toBe(true);
    expect(hooks.authorized((await hooks.get("plain"))!, new Headers({ authorization: `Bearer ${bearer.secret}x` }), "")).toBe(false);
    const admitted = [];
    for (let i = 0; i < 4; i++) admitted.push("refused" in (await hooks.admit("push")));
    expect(admitted).toEqual([false, false, false, true]);
    expect(await hooks.admit("nope")).toEqual({ refused: "not_found" });
    await expect(hooks.create({ name: "push", spec: "counter-loop" })).rejects.toThrow(/exists/);
    await hooks.remove("push");
    expect(committed(t, "SELECT name FROM trigger_hooks")).toEqual([{ name: "plain" }]);
  });
});
