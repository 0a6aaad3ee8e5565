import { afterAll, describe } from "vitest";
import { openGraphDatabase, type Database } from "@/server/db/graph-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { SqliteAgentStore } from "./sqlite-agent-store";
import { agentStoreTests } from "./testing/agent-store-suite";

describe("AgentStore on SQLite", () => {
  const temp = new TempDatabase();
  const readers: Database[] = [];
  afterAll(() => {
    for (const db of readers) db.close();
    temp[Symbol.dispose]();
  });
  agentStoreTests({
    store: () => new SqliteAgentStore(temp.db),
    // Another connection to the file: it sees what was committed.
    reopened: () => new SqliteAgentStore(readers[readers.push(openGraphDatabase(temp.file)) - 1]),
  });
});
