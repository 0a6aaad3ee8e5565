import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgSpanSink } from "@/server/db/pg-span-sink";
import { preparePostgres } from "@/server/db/pg/pg-migrate";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { PgAgentMemory } from "@/server/services/agents/pg-agent-memory";
import { PgAgentStore } from "@/server/services/agents/pg-agent-store";
import { startAppServices } from "@/server/services/app-services";
import { PgSpecStore } from "@/server/services/pg-spec-store";
import { createClusterAppServices } from "./cluster-app-services";
import { ClusterWorker } from "./cluster-worker";
import { workerGraphs } from "./worker-graphs";

/** A web process as instrumentation.ts starts it on PostgreSQL: migrate, the services, the start-up work. */
async function webProcess(url: string, role: "web" | "all", dataDir: string): Promise<() => Promise<void>> {
  await preparePostgres(url);
  const env = parseEnv({ DATABASE_URL: url, MODEX_ROLE: role, MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40), MODEX_LEASE_MS: "2000" });
  const services = await createClusterAppServices({ url, env });
  const report = await startAppServices(services, { specsDir: env.specsDir, recover: false });
  // Every folder spec compiles here, those naming a folder agent another process saved included.
  if (report.specs.failed.length > 0) throw new Error(`specs not loaded: ${report.specs.failed.map((f) => f.message).join("; ")}`);
  return async () => services.close?.();
}

/** A worker process as worker-main.ts starts it: migrate, the folder saved into the shared stores, the worker. */
async function workerProcess(url: string, dataDir: string): Promise<() => Promise<void>> {
  await preparePostgres(url);
  const env = parseEnv({ DATABASE_URL: url, MODEX_ROLE: "worker", MODEX_DATA_DIR: dataDir });
  const db = PgAppDatabase.open({ url, maxConnections: 4, applicationName: "modex-worker-app" });
  const graphs = await workerGraphs({
    specsDir: env.specsDir,
    store: new PgSpecStore(db),
    agentStores: { agents: new PgAgentStore(db), spans: new PgSpanSink(db), memory: new PgAgentMemory(db) },
    agents: { workspace: dataDir, agentsDir: env.agentsDir, mcpDir: env.mcpDir },
  });
  // Every folder spec compiles here, those naming a folder agent included.
  const files = readdirSync(env.specsDir).filter((f) => /\.ya?ml$/.test(f));
  if (graphs.names.length !== files.length) throw new Error(`the worker compiled ${graphs.names.length} of ${files.length} folder specs`);
  const worker = await ClusterWorker.start({ url, graphs: graphs.catalog, leaseMs: 2000 });
  return async () => {
    await worker.stop(1000);
    await graphs.agents.mcp.close();
    await db.close();
  };
}

describe("a cluster's processes starting and stopping at once on a new database", () => {
  it("two web processes, one of role all and a worker start at once: each starts, every folder spec and agent is saved once, no deadlock", async () => {
    for (let round = 0; round < 3; round++) {
      await using database = await PgTestDatabase.create({ migrate: false });
      const dataDir = mkdtempSync(path.join(tmpdir(), "modex-start-"));
      try {
        const started = await Promise.allSettled([
          webProcess(database.url, "web", dataDir),
          webProcess(database.url, "web", dataDir),
          webProcess(database.url, "all", dataDir),
          workerProcess(database.url, dataDir),
        ]);
        const stops = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
        const stopped = await Promise.allSettled(stops.map((stop) => stop()));
        expect(started.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []))).toEqual([]);
        expect(stopped.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []))).toEqual([]);

        await database.withClient(async (client) => {
          const twice = async (table: string) =>
            (await client.query(`SELECT name, count(*)::int AS n FROM ${table} GROUP BY name HAVING count(*) > 1 ORDER BY name`)).rows;
          expect(await twice("graph_specs")).toEqual([]);
          expect(await twice("agent_definitions")).toEqual([]);
          expect(Number((await client.query("SELECT count(*) AS n FROM graph_specs")).rows[0].n)).toBeGreaterThan(0);
          // Every process left the cluster as it stopped.
          expect((await client.query("SELECT process_id FROM cluster_processes")).rows).toEqual([]);
        });
        expect(await database.deadlocksOnceAlone()).toBe(0);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }, 240_000);
});
