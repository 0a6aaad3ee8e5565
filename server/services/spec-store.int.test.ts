import { afterAll, beforeAll, describe } from "vitest";
import { openGraphDatabase, type Database } from "@/server/db/graph-database";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { PgSpecStore } from "./pg-spec-store";
import { InMemorySpecStore } from "./spec-store";
import { SqliteSpecStore } from "./sqlite-spec-store";
import { specStoreTests } from "./testing/spec-store-suite";

describe("InMemorySpecStore", () => {
  const store = new InMemorySpecStore();
  specStoreTests({ store: () => store, reopened: () => store });
});

describe("SqliteSpecStore", () => {
  let temp: TempDatabase;
  const others: Database[] = [];
  beforeAll(() => {
    temp = new TempDatabase();
  });
  afterAll(() => {
    for (const db of others) db.close();
    temp[Symbol.dispose]();
  });
  specStoreTests({
    store: () => new SqliteSpecStore(temp.db),
    reopened: () => {
      const db = openGraphDatabase(temp.file);
      others.push(db);
      return new SqliteSpecStore(db);
    },
  });
});

describe("PgSpecStore", () => {
  let database: PgTestDatabase;
  let db: PgEngineDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    db = database.open();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  specStoreTests({
    store: () => new PgSpecStore(db.acks),
    // New pools on the same database: another web process.
    reopened: () => new PgSpecStore(database.open({ maxConnections: 2 }).acks),
  });
});
