import { afterAll, beforeAll, describe } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { hookStoreConformance, scheduleStoreConformance } from "../testing/trigger-stores.conformance";
import { InMemoryHookStore, SqliteHookStore } from "./hook-store";
import { PgHookStore } from "./pg-hook-store";
import { PgScheduleStore } from "./pg-schedule-store";
import { InMemoryScheduleStore, SqliteScheduleStore } from "./schedule-store";

describe("in memory", () => {
  describe("ScheduleStore", () => scheduleStoreConformance(async () => new InMemoryScheduleStore()));
  describe("HookStore", () => hookStoreConformance(async () => new InMemoryHookStore()));
});

describe("SQLite", () => {
  const temps: TempDatabase[] = [];
  const temp = () => {
    const t = new TempDatabase();
    temps.push(t);
    return t.db;
  };
  afterAll(() => temps.forEach((t) => t[Symbol.dispose]()));
  describe("ScheduleStore", () => scheduleStoreConformance(async () => new SqliteScheduleStore(temp())));
  describe("HookStore", () => hookStoreConformance(async () => new SqliteHookStore(temp())));
});

describe("PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  const emptied = async (table: string) => {
    const db = database.open();
    await db.acks.query({ text: `TRUNCATE ${table}` });
    return db.acks;
  };
  describe("ScheduleStore", () => scheduleStoreConformance(async () => new PgScheduleStore(await emptied("trigger_schedules"))));
  describe("HookStore", () => hookStoreConformance(async () => new PgHookStore(await emptied("trigger_hooks"))));
});
