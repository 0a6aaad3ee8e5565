import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { AgentService } from "@/server/services/agents/agent-service";
import { createBuiltinToolCatalog } from "@/server/services/agents/builtin-tool-catalog";
import { PgAgentStore } from "@/server/services/agents/pg-agent-store";
import { listenForSettings } from "./settings-listener";

const catalog = () => createBuiltinToolCatalog({ modex: () => { throw new Error("unused"); }, fetchAllowedHosts: [] });
const agentYaml = (name: string) => `name: ${name}\ndescription: Helps.\ninstructions: Help.\ntools: []\n`;

describe("listenForSettings", () => {
  let database: PgTestDatabase;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await database?.[Symbol.asyncDispose]();
  });
  const service = () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pools.push(pool);
    return new AgentService(new PgAgentStore(pool), catalog());
  };

  it("a definition saved elsewhere after a starting process read them and before it listened is read once it listens", async () => {
    const starting = service();
    await starting.ready; // its first read: nothing yet
    const other = service();
    const saved = await other.save(agentYaml("between")); // announced while `starting` does not listen yet
    const listener = await listenForSettings(database.url, { agents: starting });
    try {
      await expect.poll(() => starting.find("between")?.record.agentId ?? null, { timeout: 5_000 }).toBe(saved.agentId);
      // And a save after it listens arrives through the announcement.
      const later = await other.save(agentYaml("after"));
      await expect.poll(() => starting.find("after")?.record.agentId ?? null, { timeout: 5_000 }).toBe(later.agentId);
    } finally {
      await listener.close();
    }
  });
});
