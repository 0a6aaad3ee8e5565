import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PgAgentStore } from "@/server/services/agents/pg-agent-store";
import { PgSpecStore } from "@/server/services/pg-spec-store";
import { SpecService } from "@/server/services/spec-service";
import { ClusterWorker } from "./cluster-worker";
import { ClusterFixture } from "./testing/cluster-fixture";
import { workerGraphs } from "./worker-graphs";

/** One templating node, or two in a chain (`second`). */
const spec = (name: string, template: string, second = false) => `name: ${name}
nodes:
  - { name: a, node_type: function, config: { op: template, template: "${template}" } }
${second ? "  - { name: b, node_type: function, config: { op: identity } }\n" : ""}edges:
  - { from: __start__, to: a }
${second ? "  - { from: a, to: b }\n  - { from: b, to: __end__ }" : "  - { from: a, to: __end__ }"}
`;

describe("a worker's graphs from the PostgreSQL spec store", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  /** A web process's spec service, and a worker's graphs on pools of its own, with a spec folder. */
  async function setUp() {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const web = new SpecService(new PgSpecStore(fx.pool));
    const workerPool = new pg.Pool({ connectionString: fx.url, max: 2 });
    cleanup.push(() => workerPool.end());
    const specsDir = mkdtempSync(path.join(tmpdir(), "modex-worker-specs-"));
    cleanup.push(() => rmSync(specsDir, { recursive: true, force: true }));
    writeFileSync(path.join(specsDir, "folder.yml"), spec("from-folder", "folder {{input}}"));
    const graphs = await workerGraphs({ specsDir, agents: { model: null }, store: new PgSpecStore(workerPool) });
    cleanup.push(() => graphs.agents.mcp.close());
    return { fx, web, graphs };
  }

  it("compiles any revision a web process saved, by spec id or by name, and saves the folder into the shared store", async () => {
    const { web, graphs } = await setUp();
    expect(graphs.names).toEqual(["from-folder"]);
    expect((await web.list()).map((s) => s.name)).toEqual(["from-folder"]);
    const v1 = await web.save(spec("stored-chain", "one {{input}}"));
    const v2 = await web.save(spec("stored-chain", "two {{input}}", true));
    const instance = (specId: string | null) => ({ graphName: "stored-chain", specId, nodeIdMap: {} }) as never;
    expect((await graphs.catalog(instance(v1.specId))).nodeNames()).not.toContain("b");
    expect((await graphs.catalog(instance(v2.specId))).nodeNames()).toContain("b");
    expect((await graphs.catalog(instance(null))).nodeNames()).toContain("b");
    await expect(graphs.catalog(instance("123"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("compiles a folder spec that names an agent of the agents folder (the agents are read before the specs)", async () => {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const pool = new pg.Pool({ connectionString: fx.url, max: 2 });
    cleanup.push(() => pool.end());
    const dir = mkdtempSync(path.join(tmpdir(), "modex-worker-folders-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const [specsDir, agentsDir] = [path.join(dir, "graphs"), path.join(dir, "agents")];
    mkdirSync(specsDir);
    mkdirSync(agentsDir);
    writeFileSync(path.join(agentsDir, "helper.yml"), "name: helper\ndescription: Helps.\ninstructions: Help.\ntools: []\n");
    writeFileSync(
      path.join(specsDir, "helped.yml"),
      "name: helped\nnodes:\n  - { name: a, node_type: agent, config: { agent: helper } }\nedges:\n  - { from: __start__, to: a }\n  - { from: a, to: __end__ }\n",
    );
    const graphs = await workerGraphs({ specsDir, agents: { model: null, agentsDir }, store: new PgSpecStore(pool), agentStores: { agents: new PgAgentStore(pool), memory: null } });
    cleanup.push(() => graphs.agents.mcp.close());
    expect(graphs.names).toEqual(["helped"]);
    expect((await graphs.catalog({ graphName: "helped", specId: null, nodeIdMap: {} } as never)).nodeNames()).toContain("a");
  });

  it("lets a worker run a spec saved through a web process, at the instance's revision", async () => {
    const { fx, web, graphs } = await setUp();
    const v1 = await web.save(spec("stored-chain", "one {{input}}"));
    await web.save(spec("stored-chain", "two {{input}}", true));
    const { graph } = await web.compile(await web.resolve(v1.specId));
    await fx.control.createMany({ graph, inputs: [{ instanceId: "stored-1", input: "x" }] });
    await fx.query("UPDATE graph_instances SET spec_id = $1 WHERE instance_id = 'stored-1'", [v1.specId]);
    const worker = await ClusterWorker.start({ url: fx.url, graphs: graphs.catalog, leaseMs: 2000 });
    cleanup.push(() => worker.stop());
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 30_000, "the instance completed");
    const [io] = await fx.query<{ output: { content: unknown }[] }>("SELECT output FROM graph_io_records WHERE instance_id = 'stored-1'");
    expect(io.output.map((p) => p.content)).toEqual(["one x"]);
  }, 60_000);
});
