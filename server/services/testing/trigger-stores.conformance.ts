import { expect, it } from "vitest";
import type { HookRecord, HookStore } from "../triggers/hook-store";
import type { ScheduleRecord, ScheduleStore } from "../triggers/schedule-store";

const T = Date.UTC(2026, 11, 1, 12, 0, 0, 123);

export const scheduleRecord = (name: string, overrides: Partial<ScheduleRecord> = {}): ScheduleRecord => ({
  name,
  spec: "counter-loop",
  cron: "*/5 * * * *",
  timezone: "Europe/Paris",
  input: { n: 1, tags: ["a", "b"], nested: { ok: true } },
  overlap: "skip",
  missed: "run_once",
  paused: false,
  declaredIn: null,
  nextFireAt: T + 300_000,
  lastFireAt: null,
  lastOutcome: null,
  lastInstanceId: null,
  createdAt: T,
  updatedAt: T + 1,
  ...overrides,
});

/** The ScheduleStore contract, run on the in-memory, SQLite and PostgreSQL stores (each test on an empty table). */
export function scheduleStoreConformance(fresh: () => Promise<ScheduleStore>): void {
  it("put then get: every field as written; an unknown name is null", async () => {
    const store = await fresh();
    const full = scheduleRecord("full", { declaredIn: "nightly", lastFireAt: T - 1, lastOutcome: "started", lastInstanceId: "i-1", paused: true, nextFireAt: null, overlap: "cancel_previous", missed: "skip" });
    await store.put(full);
    await store.put(scheduleRecord("plain", { input: null }));
    await store.put(scheduleRecord("text", { input: "just text" }));
    expect(await store.get("full")).toEqual(full);
    expect(await store.get("plain")).toEqual(scheduleRecord("plain", { input: null }));
    expect((await store.get("text"))!.input).toBe("just text");
    expect(await store.get("nope")).toBeNull();
  });

  it("put replaces the whole row of its name", async () => {
    const store = await fresh();
    await store.put(scheduleRecord("s", { lastOutcome: "started", lastInstanceId: "i-1" }));
    const next = scheduleRecord("s", { cron: "0 * * * *", lastOutcome: null, lastInstanceId: null, nextFireAt: T + 3_600_000, updatedAt: T + 2 });
    await store.put(next);
    expect(await store.get("s")).toEqual(next);
    expect(await store.list()).toHaveLength(1);
  });

  it("list answers every schedule by name; remove says whether there was one", async () => {
    const store = await fresh();
    expect(await store.list()).toEqual([]);
    for (const name of ["beta", "alpha", "gamma"]) await store.put(scheduleRecord(name));
    expect((await store.list()).map((s) => s.name)).toEqual(["alpha", "beta", "gamma"]);
    expect(await store.remove("beta")).toBe(true);
    expect(await store.remove("beta")).toBe(false);
    expect(await store.get("beta")).toBeNull();
    expect((await store.list()).map((s) => s.name)).toEqual(["alpha", "gamma"]);
  });
}

export const hookRecord = (name: string, overrides: Partial<HookRecord> = {}): HookRecord => ({
  name,
  spec: "counter-loop",
  auth: "hmac",
  secret: `secret-of-${name}`,
  maxBodyBytes: 262_144,
  ratePerMinute: 60,
  createdAt: T,
  rotatedAt: T,
  ...overrides,
});

/** The HookStore contract, run on the in-memory, SQLite and PostgreSQL stores (each test on an empty table). */
export function hookStoreConformance(fresh: () => Promise<HookStore>): void {
  it("put then get: every field as written; an unknown name is null", async () => {
    const store = await fresh();
    const bearer = hookRecord("b", { auth: "bearer", maxBodyBytes: 10 * 1024 * 1024, ratePerMinute: 100_000 });
    await store.put(bearer);
    expect(await store.get("b")).toEqual(bearer);
    expect(await store.get("nope")).toBeNull();
  });

  it("create adds a hook only if none of that name exists; of creates at once exactly one is true", async () => {
    const store = await fresh();
    expect(await store.create(hookRecord("push"))).toBe(true);
    expect(await store.create(hookRecord("push", { secret: "other" }))).toBe(false);
    expect((await store.get("push"))?.secret).toBe(hookRecord("push").secret);
    const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => store.create(hookRecord("race", { secret: `s${i}` }))));
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect((await store.get("race"))?.secret).toBe(`s${racing.indexOf(true)}`);
  });

  it("put replaces the row (a rotated secret); list is by name; remove says whether there was one", async () => {
    const store = await fresh();
    await store.put(hookRecord("push"));
    await store.put(hookRecord("alpha"));
    const rotated = hookRecord("push", { secret: "new", rotatedAt: T + 5 });
    await store.put(rotated);
    expect(await store.get("push")).toEqual(rotated);
    expect((await store.list()).map((h) => h.name)).toEqual(["alpha", "push"]);
    expect(await store.remove("push")).toBe(true);
    expect(await store.remove("push")).toBe(false);
    expect(await store.list()).toEqual([hookRecord("alpha")]);
  });
}
