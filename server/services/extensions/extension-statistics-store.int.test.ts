import { afterAll, beforeAll, describe } from "vitest";
import { InMemoryTokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import { openGraphDatabase } from "@/server/db/graph-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { extensionStatisticsStoreConformance } from "../testing/extension-statistics-store.conformance";
import { tokenTotalsConformance } from "../testing/token-totals.conformance";
import { InMemoryExtensionStatisticsStore, SqliteExtensionStatisticsStore } from "./extension-statistics-store";
import { PgExtensionStatisticsStore } from "./pg-extension-statistics-store";
import { PgTokenTotals } from "./pg-token-totals";
import { SqliteTokenTotals } from "./token-totals-store";

describe("InMemoryExtensionStatisticsStore", () => {
  extensionStatisticsStoreConformance({ fresh: async () => new InMemoryExtensionStatisticsStore() });
});

describe("InMemoryTokenTotals", () => {
  tokenTotalsConformance({ fresh: async () => new InMemoryTokenTotals() });
});

describe("on SQLite", () => {
  const temps: TempDatabase[] = [];
  afterAll(() => temps.forEach((t) => t[Symbol.dispose]()));
  let current: TempDatabase;
  const fresh = () => {
    current = new TempDatabase();
    temps.push(current);
    return current.db;
  };
  describe("SqliteExtensionStatisticsStore", () => {
    extensionStatisticsStoreConformance({
      fresh: async () => new SqliteExtensionStatisticsStore(fresh()),
      reopened: async () => new SqliteExtensionStatisticsStore(openGraphDatabase(current.file)),
    });
  });
  describe("SqliteTokenTotals", () => {
    tokenTotalsConformance({
      fresh: async () => new SqliteTokenTotals(fresh()),
      reopened: async () => new SqliteTokenTotals(openGraphDatabase(current.file)),
    });
  });
});

describe("on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  describe("PgExtensionStatisticsStore", () => {
    extensionStatisticsStoreConformance({
      fresh: async () => {
        const db = database.open();
        await db.acks.query({ text: "TRUNCATE extension_statistics, extension_counters" });
        return new PgExtensionStatisticsStore(db.acks);
      },
      other: async () => new PgExtensionStatisticsStore(database.open().acks),
      reopened: async () => new PgExtensionStatisticsStore(database.open().acks),
    });
  });
  describe("PgTokenTotals", () => {
    tokenTotalsConformance({
      fresh: async () => {
        const db = database.open();
        await db.acks.query({ text: "TRUNCATE token_budget_totals" });
        return new PgTokenTotals(db.acks);
      },
      other: async () => new PgTokenTotals(database.open().acks),
      reopened: async () => new PgTokenTotals(database.open().acks),
    });
  });
});
