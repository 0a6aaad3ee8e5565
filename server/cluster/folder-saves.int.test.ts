import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { createAgentSetup } from "@/server/services/agent-nodes";
import { AgentService } from "@/server/services/agents/agent-service";
import { createBuiltinToolCatalog } from "@/server/services/agents/builtin-tool-catalog";
import { PgAgentStore } from "@/server/services/agents/pg-agent-store";
import { PgSpecStore } from "@/server/services/pg-spec-store";
import { SpecService } from "@/server/services/spec-service";

const agentYaml = (name: string) => `name: ${name}\ndescription: Helps with ${name}.\ninstructions: Help.\ntools: []\n`;
const specYaml = (name: string, agent: string) =>
  `name: ${name}\nnodes:\n  - { name: a, node_type: agent, config: { agent: ${agent} } }\nedges:\n  - { from: __start__, to: a }\n  - { from: a, to: __end__ }\n`;

/**
 * Processes of a cluster save the spec and agent folders at start-up into the one database: whichever
 * saves a file first makes its revision, the others find it. None makes a second revision, none fails,
 * and each knows every definition afterwards (its specs that name one compile).
 */
describe("spec and agent folders saved by several processes at once (PostgreSQL)", () => {
  let database: PgTestDatabase;
  let pools: pg.Pool[];
  let dir: string;
  const agentsDir = () => path.join(dir, "agents");
  const specsDir = () => path.join(dir, "graphs");
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    dir = mkdtempSync(path.join(tmpdir(), "modex-folders-"));
    mkdirSync(agentsDir());
    mkdirSync(specsDir());
    for (const n of ["alpha", "beta", "gamma"]) {
      writeFileSync(path.join(agentsDir(), `${n}.yml`), agentYaml(n));
      writeFileSync(path.join(specsDir(), `uses-${n}.yml`), specYaml(`uses-${n}`, n));
    }
    pools = [];
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    rmSync(dir, { recursive: true, force: true });
    await database?.[Symbol.asyncDispose]();
  });

  /** A process's pool on the database. */
  const pool = () => {
    const p = new pg.Pool({ connectionString: database.url, max: 4 });
    pools.push(p);
    return p;
  };
  const truncate = () => pool().query("TRUNCATE agent_definitions, graph_specs");
  const revisions = async (table: string) =>
    (await pool().query<{ name: string; n: number }>(`SELECT name, count(*)::int AS n FROM ${table} GROUP BY name ORDER BY name`)).rows;

  it("an agent service that read the definitions before another process saved the folder knows them once it loads the folder (it saves none)", async () => {
    await truncate();
    const catalog = () => createBuiltinToolCatalog({ modex: () => { throw new Error("unused"); }, fetchAllowedHosts: [] });
    // B starts first and reads the (empty) table; A saves the folder; then B loads it.
    const b = new AgentService(new PgAgentStore(pool()), catalog());
    await b.ready;
    const a = new AgentService(new PgAgentStore(pool()), catalog());
    await a.ready;
    expect((await a.loadDirectory(agentsDir())).created).toEqual(["alpha", "beta", "gamma"]);
    const report = await b.loadDirectory(agentsDir());
    expect(report).toEqual({ loaded: ["alpha", "beta", "gamma"], created: [], failed: [] });
    for (const n of ["alpha", "beta", "gamma"]) expect(b.find(n)?.record.agentId, n).toBe(a.find(n)?.record.agentId);
    expect(await revisions("agent_definitions")).toEqual(["alpha", "beta", "gamma"].map((name) => ({ name, n: 1 })));
  });

  it("five processes loading the same agent and spec folders at once: one revision each, nothing failed, every spec compiled everywhere", async () => {
    for (let round = 0; round < 3; round++) {
      await truncate();
      const reports = await Promise.all(
        [0, 1, 2, 3, 4].map(async () => {
          const setup = createAgentSetup({ agentsDir: agentsDir() }, new PgAgentStore(pool()));
          const specs = new SpecService(new PgSpecStore(pool()), undefined, new GraphSpecCompiler(setup.registry));
          // As startAppServices: the agents first, then the specs (which name them).
          const agents = await setup.loaded;
          await setup.agents.ready;
          const loaded = await specs.loadDirectory(specsDir());
          await setup.mcp.close();
          return { agents, specs: loaded };
        }),
      );
      for (const r of reports) {
        expect(r.agents.failed).toEqual([]);
        expect(r.specs.failed).toEqual([]);
        expect(r.specs.loaded).toEqual(["uses-alpha", "uses-beta", "uses-gamma"]);
      }
      // Each file was saved by exactly one of them.
      expect(reports.flatMap((r) => r.agents.created).sort()).toEqual(["alpha", "beta", "gamma"]);
      expect(reports.flatMap((r) => r.specs.created).sort()).toEqual(["uses-alpha", "uses-beta", "uses-gamma"]);
      expect(await revisions("agent_definitions")).toEqual(["alpha", "beta", "gamma"].map((name) => ({ name, n: 1 })));
      expect(await revisions("graph_specs")).toEqual(["uses-alpha", "uses-beta", "uses-gamma"].map((name) => ({ name, n: 1 })));
    }
  }, 60_000);
});
