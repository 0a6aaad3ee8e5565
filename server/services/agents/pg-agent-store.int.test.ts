import { afterAll, beforeAll, describe } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { PgAgentStore } from "./pg-agent-store";
import { agentStoreTests } from "./testing/agent-store-suite";

describe("AgentStore on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  // New pools each time: what another process has.
  const process = () => new PgAgentStore(database.open().acks);
  agentStoreTests({ store: process, reopened: process });
});
