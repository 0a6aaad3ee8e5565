/**
 * The worker process (worker-main.ts loads it). Checks MODEX_DATA_DIR (agent nodes' workspace), applies
 * pending PostgreSQL migrations, compiles the spec folder with the app's node types (agent nodes included, configured from
 * the app's environment), then works the queue (see ClusterWorker) until SIGTERM or SIGINT, which stop it gracefully
 * (runs here finish or are abandoned to the sweeper after 10 s). Health over HTTP only, on
 * MODEX_WORKER_HEALTH_PORT if set: GET /health → { workerId, running, stats }.
 */
import { createServer } from "node:http";
import { prepareDataDir } from "@/server/db/data-dir-lock";
import { preparePostgres } from "@/server/db/pg/pg-migrate";
import { env as app } from "@/server/env";
import { modelSettingsOf } from "@/server/services/agent-nodes";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgSpanSink } from "@/server/db/pg-span-sink";
import { PgAgentMemory } from "@/server/services/agents/pg-agent-memory";
import { PgAgentStore } from "@/server/services/agents/pg-agent-store";
import { PgSpecStore } from "@/server/services/pg-spec-store";
import { AppExtensions } from "@/server/services/extensions/app-extensions";
import { extensionsNamedByAgents } from "@/server/services/extensions/definition-extensions";
import { PgExtensionSettingsStore } from "@/server/services/extensions/pg-extension-settings-store";
import { PgExtensionStatisticsStore } from "@/server/services/extensions/pg-extension-statistics-store";
import { PgTokenTotals } from "@/server/services/extensions/pg-token-totals";
import { AgentLiveSender } from "./agent-live-sender";
import { ClusterWorker } from "./cluster-worker";
import { listenForSettings } from "./settings-listener";
import { workerGraphs } from "./worker-graphs";
import { readWorkerEnv } from "./worker-env";

const env = readWorkerEnv();
// Agent nodes keep their runs' knowledge bases and oversized tool results under MODEX_DATA_DIR, as in
// the app: one that cannot be used stops the worker now, naming it, not at some agent node's first write.
prepareDataDir(app.dataDir);
await preparePostgres(env.databaseUrl);
// The cluster's stores: every spec revision and agent definition a web process saved, agent nodes'
// memory (conversations, approvals, suspended turns: any worker resumes a turn) and their traces.
const db = PgAppDatabase.open({ url: env.databaseUrl, maxConnections: 4, applicationName: "modex-worker-app" });
// The app's extensions (MODEX_EXTENSIONS_DIR), on/off as a person set them: agent nodes run them here
// as in the web process; their statistics and token_budget's totals are the cluster's (PostgreSQL).
const extensions = new AppExtensions({
  dir: app.extensionsDir,
  settings: new PgExtensionSettingsStore(db),
  statistics: new PgExtensionStatisticsStore(db),
  tokenTotals: new PgTokenTotals(db),
});
// Agent nodes as in the app: the same model, agents, MCP servers, tools, extensions and workspace variables.
const { catalog, names, agents } = await workerGraphs({
  specsDir: env.specsDir,
  store: new PgSpecStore(db),
  agentStores: { agents: new PgAgentStore(db), spans: new PgSpanSink(db), memory: new PgAgentMemory(db) },
  agents: {
    model: modelSettingsOf(app),
    workspace: app.dataDir,
    agentsDir: app.agentsDir,
    mcpDir: app.mcpDir,
    fetchAllowedHosts: app.MODEX_FETCH_ALLOWED_HOSTS,
    traceTier: app.MODEX_TRACE_TIER,
    extensions: extensions.manager,
  },
});
await extensions.load(await extensionsNamedByAgents(agents.agents)); // before the first job
// What its agent nodes stream reaches the viewers on every web process (best-effort, batched NOTIFYs).
const live = new AgentLiveSender({ db, runs: agents.runs });
// A definition saved, or an extension turned on or off, on any process reaches this worker's agent nodes.
const settings = await listenForSettings(env.databaseUrl, { agents: agents.agents, extensions });
const worker = await ClusterWorker.start({
  url: env.databaseUrl,
  graphs: catalog,
  workerId: env.workerId,
  leaseMs: env.leaseMs,
  concurrency: env.concurrency,
  connections: env.connections,
  onLiveResync: () => live.resync(),
});
console.log(`[modex worker ${worker.workerId}] working (${names.length} graphs from ${env.specsDir}, lease ${env.leaseMs} ms)`);

const health =
  env.healthPort === undefined
    ? null
    : createServer((req, res) => {
        const ok = req.url === "/health" || req.url === "/healthz";
        res.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
        res.end(ok ? JSON.stringify({ workerId: worker.workerId, running: worker.running.length, stats: worker.stats }) : "{}");
      }).listen(env.healthPort);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  health?.close();
  void worker
    .stop(10_000)
    .then(() => live.close())
    .then(() => extensions.close()) // the statistics counted since the last flush
    .then(() => agents.mcp.close())
    .then(() => settings.close())
    .then(() => db.close())
    .finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
