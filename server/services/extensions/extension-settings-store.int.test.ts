import { afterAll, beforeAll, describe } from "vitest";
import { openGraphDatabase } from "@/server/db/graph-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { extensionSettingsStoreConformance } from "../testing/extension-settings-store.conformance";
import { InMemoryExtensionSettingsStore, SqliteExtensionSettingsStore } from "./extension-settings-store";
import { PgExtensionSettingsStore } from "./pg-extension-settings-store";

describe("InMemoryExtensionSettingsStore", () => {
  extensionSettingsStoreConformance({ fresh: async () => new InMemoryExtensionSettingsStore() });
});

describe("SqliteExtensionSettingsStore", () => {
  const temps: TempDatabase[] = [];
  afterAll(() => temps.forEach((t) => t[Symbol.dispose]()));
  let current: TempDatabase;
  extensionSettingsStoreConformance({
    fresh: async () => {
      current = new TempDatabase();
      temps.push(current);
      return new SqliteExtensionSettingsStore(current.db);
    },
    reopened: async () => new SqliteExtensionSettingsStore(openGraphDatabase(current.file)),
  });
});

describe("PgExtensionSettingsStore", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  extensionSettingsStoreConformance({
    fresh: async () => {
      const db = database.open();
      await db.acks.query({ text: "TRUNCATE extension_settings" });
      return new PgExtensionSettingsStore(db.acks);
    },
    reopened: async () => new PgExtensionSettingsStore(database.open().acks),
  });
});
