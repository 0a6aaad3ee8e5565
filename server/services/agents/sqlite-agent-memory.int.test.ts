import { afterAll, describe } from "vitest";
import { openGraphDatabase, type Database } from "@/server/db/graph-database";
import { commitDeferred } from "@/server/db/deferred-transaction";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { SqliteAgentMemory } from "./sqlite-agent-memory";
import { agentMemoryTests, type AgentMemory } from "./testing/agent-memory-suite";

describe("agent node memory on SQLite", () => {
  const temp = new TempDatabase();
  const readers: Database[] = [];
  afterAll(() => {
    for (const db of readers) db.close();
    temp[Symbol.dispose]();
  });
  const of = (m: SqliteAgentMemory): AgentMemory => ({ memory: m, summaries: m, approvals: m.approvals, snapshots: m.snapshots, checkpoints: m.checkpoints });
  agentMemoryTests({
    open: () => of(new SqliteAgentMemory(temp.db)),
    // Its writes join the engine's deferred transaction: committed at the next step or macrotask, here at once.
    reopened: async () => {
      commitDeferred(temp.db);
      return of(new SqliteAgentMemory(readers[readers.push(openGraphDatabase(temp.file)) - 1]));
    },
  });
});
