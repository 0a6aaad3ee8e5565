import { afterAll, beforeAll, describe } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { notificationStoreConformance } from "../testing/notification-store.conformance";
import { InMemoryNotificationStore } from "./notification-store";
import { PgNotificationStore } from "./pg-notification-store";
import { SqliteNotificationStore } from "./sqlite-notification-store";

describe("in memory", () => notificationStoreConformance(async () => new InMemoryNotificationStore()));

describe("SQLite", () => {
  const temps: TempDatabase[] = [];
  afterAll(() => temps.forEach((t) => t[Symbol.dispose]()));
  notificationStoreConformance(async () => {
    const t = new TempDatabase();
    temps.push(t);
    return new SqliteNotificationStore(t.db);
  });
});

describe("PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  notificationStoreConformance(async () => {
    const db = database.open();
    await db.acks.query({ text: "TRUNCATE notifications, notification_deliveries" });
    return new PgNotificationStore(db.acks);
  });
});
