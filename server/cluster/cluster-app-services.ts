import type { Env } from "@/server/env";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { openPgEngineDatabase, type PgEngineDatabase } from "@/server/db/pg/pg-database";
import { PgCoordinatorFactory } from "@/server/db/pg/pg-coordinator";
import { PgStateSnapshots } from "@/server/db/pg/pg-state-snapshots";
import { PgSpanSink } from "@/server/db/pg-span-sink";
import { modelSettingsOf, type AgentNodesOptions } from "@/server/services/agent-nodes";
import { PgAgentMemory } from "@/server/services/agents/pg-agent-memory";
import { PgAgentStore } from "@/server/services/agents/pg-agent-store";
import { createAppServices, type AppServices } from "@/server/services/app-services";
import type { AppStores } from "@/server/services/app-stores";
import { inMemoryDurability } from "@/server/services/durability";
import { currentExecutor } from "@/server/services/executor-identity";
import { AuthService } from "@/server/services/auth-service";
import { PgChatStore } from "@/server/services/chat/pg-chat-store";
import { AppExtensions } from "@/server/services/extensions/app-extensions";
import { PgExtensionSettingsStore } from "@/server/services/extensions/pg-extension-settings-store";
import { PgExtensionStatisticsStore } from "@/server/services/extensions/pg-extension-statistics-store";
import { PgTokenTotals } from "@/server/services/extensions/pg-token-totals";
import { pgInstanceCounter } from "@/server/services/instance-counts";
import { PgEventLog } from "@/server/services/pg-event-log";
import { PgIdempotencyStore } from "@/server/services/pg-idempotency-store";
import { PgInstanceArchive } from "@/server/services/pg-instance-archive";
import { PgInstanceListing } from "@/server/services/pg-instance-listing";
import { PgSessionRevocations } from "@/server/services/pg-session-revocations";
import { PgSpecStore } from "@/server/services/pg-spec-store";
import { pgFireLock } from "@/server/services/triggers/pg-fire-lock";
import { PgHookStore } from "@/server/services/triggers/pg-hook-store";
import { PgNotificationStore } from "@/server/services/notifications/pg-notification-store";
import { PgScheduleStore } from "@/server/services/triggers/pg-schedule-store";
import { loadModelPrices } from "@/server/services/usage/model-prices";
import type { EngineEvent } from "@/server/graph/events";
import { AgentLiveListener } from "./agent-live-listener";
import { AgentLiveSender } from "./agent-live-sender";
import { ClusterControl } from "./cluster-control";
import { ClusterForkStarter } from "./cluster-fork-starter";
import { ClusterGraphControl } from "./cluster-graph-control";
import { ClusterLauncher } from "./cluster-launcher";
import { ClusterWorker } from "./cluster-worker";
import { Dispatch } from "./dispatch";
import { bridgeChatEvents } from "./chat-event-bridge";
import { ChatTurnReaper } from "./chat-turn-reaper";
import { ChatTurnRelay } from "./chat-turn-relay";
import { bridgeClusterEvents } from "./event-bridge";
import { PgClusterStatus } from "./pg-cluster-status";
import { ProcessHeartbeat } from "./process-heartbeat";
import { listenForSettings } from "./settings-listener";
import type { LiveEvents } from "./run-start-signal";
import { specServiceCatalog } from "./spec-service-catalog";

/** Every store of the app on one PostgreSQL database, all writing through `db` (its transactions join). */
export function pgAppStores(db: PgAppDatabase, engine: PgEngineDatabase): AppStores {
  const spans = new PgSpanSink(db);
  return {
    coordinators: new PgCoordinatorFactory(engine),
    // Every PostgreSQL store commits a write before its promise resolves: nothing to wait for after it.
    durability: inMemoryDurability,
    specs: new PgSpecStore(db),
    events: new PgEventLog(db),
    counter: pgInstanceCounter(db),
    archive: new PgInstanceArchive(db),
    listing: new PgInstanceListing(db),
    idempotency: new PgIdempotencyStore(db),
    agents: new PgAgentStore(db),
    spans,
    turns: spans,
    chats: new PgChatStore(db),
    agentMemory: new PgAgentMemory(db),
    snapshots: new PgStateSnapshots(db),
    schedules: new PgScheduleStore(db),
    hooks: new PgHookStore(db),
    notifications: new PgNotificationStore(db),
  };
}

/**
 * A process of a PostgreSQL cluster serving the web app: MODEX_ROLE=web (UI, REST, SSE; runs nothing)
 * or all (the same, plus a worker in this process). Every store is on PostgreSQL; creates and control
 * commands and forks commit as jobs for the workers (ClusterLauncher, ClusterGraphControl,
 * ClusterForkStarter); live events come from
 * LISTEN (bridgeClusterEvents), and so do chat events (bridgeChatEvents) and saved agent definitions
 * and extension toggles (listenForSettings), and agent nodes' streamed text (AgentLiveListener); schedules fire once across the cluster (pgFireLock). The
 * process keeps a heartbeat under its executor id, stored as the owner of the chat turns it runs; the
 * turns of a process whose heartbeat expired are ended by a live one (ChatTurnReaper); stop, STEER and
 * INTERRUPT sent here for a turn another process runs are relayed to it (ChatTurnRelay). The token must be
 * the same on every web process: set MODEX_TOKEN (a generated one is per data directory).
 */
export async function createClusterAppServices(args: {
  url: string;
  env: Env;
  /** Tests: agent settings over the environment's (a scripted chat model, say). */
  agents?: Partial<AgentNodesOptions>;
  /** Tests: how often the orphaned chat turns are looked for (default: every third of the lease). */
  reapEveryMs?: number;
  /** Tests: how long stop, STEER and INTERRUPT wait for the process running the turn (default 5 s). */
  relayTimeoutMs?: number;
}): Promise<AppServices> {
  const { url, env } = args;
  const executor = currentExecutor();
  const db = PgAppDatabase.open({ url, applicationName: `modex-${env.MODEX_ROLE}` });
  const dispatch = await Dispatch.start({ url, supervise: false });
  const cluster = new ClusterControl({ db, dispatch });
  const engine = openPgEngineDatabase({ url, maxConnections: 4, applicationName: `modex-${env.MODEX_ROLE}-engine`, stepCommit: "sync" });
  const stores = pgAppStores(db, engine);
  // The control plane is made inside createAppServices, before the bus it will listen on exists.
  let bus: AppServices["bus"] | null = null;
  const events: LiveEvents = { subscribe: (instanceId, listener) => bus?.subscribe(instanceId, listener) ?? (() => undefined) };
  const services = createAppServices({
    stores,
    cluster: {
      launcher: (specs) => new ClusterLauncher({ db, cluster, specs }),
      control: ({ archive, onDeleted }) => new ClusterGraphControl({ db, cluster, archive, onDeleted, events }),
      forks: () => new ClusterForkStarter({ db, cluster }),
    },
    fireLock: pgFireLock(db.pool),
    clusterStatus: new PgClusterStatus(db, executor.id),
    auth: AuthService.fromDataDir({ tokenFile: env.tokenFile, envToken: env.MODEX_TOKEN, revocations: new PgSessionRevocations(db) }),
    executor,
    agents: { model: modelSettingsOf(env), workspace: env.dataDir, agentsDir: env.agentsDir, mcpDir: env.mcpDir, fetchAllowedHosts: env.MODEX_FETCH_ALLOWED_HOSTS, traceTier: env.MODEX_TRACE_TIER, ...args.agents },
    autoRecovery: false,
    extensions: new AppExtensions({
      dir: env.extensionsDir,
      settings: new PgExtensionSettingsStore(db),
      statistics: new PgExtensionStatisticsStore(db),
      tokenTotals: new PgTokenTotals(db),
    }),
    modelPrices: loadModelPrices(env.modelPricesFile),
    publicUrl: env.MODEX_PUBLIC_URL ?? `http://localhost:${env.PORT}`,
  });
  bus = services.bus;
  const listener = await bridgeClusterEvents(url, services.bus);
  // Agent nodes' live text: a worker in this process (role all) relays what its nodes stream; what
  // the workers elsewhere stream reaches this process's viewers. Best-effort (see AgentLiveSender).
  const liveSender = env.MODEX_ROLE === "all" ? new AgentLiveSender({ db, runs: services.agentRuns }) : null;
  const live = await AgentLiveListener.start({ url, runs: services.agentRuns, ignoreFrom: liveSender?.id });
  listener.subscribe((e) => live.settle(e.payload as EngineEvent));
  const chatFeed = await bridgeChatEvents(url, services.chat);
  const settings = await listenForSettings(url, { agents: services.agents, chat: services.chat, extensions: services.extensions });
  // Beating before the first turn starts: a turn is never stored with an owner that looks dead.
  const heartbeat = await ProcessHeartbeat.start({ db, executor, role: env.MODEX_ROLE, leaseMs: env.MODEX_LEASE_MS });
  const reaper = new ChatTurnReaper({ db, chat: services.chat, owner: executor.id, waitingIdleMs: env.MODEX_LEASE_MS }).start(args.reapEveryMs ?? Math.max(100, Math.floor(env.MODEX_LEASE_MS / 3)));
  // Stop, STEER and INTERRUPT reach the process running the turn; a dead owner's turns are reaped at once.
  const relay = await ChatTurnRelay.start({ url, db, me: executor.id, onGone: () => reaper.pass(), timeoutMs: args.relayTimeoutMs });
  relay.serve((request) => services.chat.applyRelayed(request));
  services.chat.useRelay(relay);
  let worker: ClusterWorker | null = null;
  if (env.MODEX_ROLE === "all") {
    // One process does everything: a worker here takes the jobs (others may join it). Its leases name
    // this process's executor id, whose heartbeat row (role all) is the worker's too.
    worker = await ClusterWorker.start({ url, graphs: specServiceCatalog(services.specs), workerId: executor.id, processRow: false, onLiveResync: () => liveSender?.resync() });
    console.log(`[modex] worker ${worker.workerId} runs instances in this process`);
  }
  let closed: Promise<void> | null = null;
  const close = () => (closed ??= closeAll());
  const closeAll = async () => {
    // A schedule fire in flight finishes here (its run made, the row moved on) rather than failing on
    // a closed database; the turns run here end now (as a restart ends them), before the heartbeat leaves.
    await Promise.all([services.triggers.end(), services.notifications.end(), services.chat.stopTurns()]);
    // Gone for the cluster before the relay stops listening: a stop, STEER or INTERRUPT asked of this
    // process from now on finds no heartbeat (no NOTIFY; the asker's reaper ends what this process
    // still owned) instead of waiting the relay's bound for an answer nobody gives. Requests that came
    // before are still answered. The reaper claims nothing once its own heartbeat is gone; a pass in
    // flight may end a turn another process's reaper now ends too (each end holds the row: one wins).
    await heartbeat.stop({ leave: true });
    await relay.close();
    await worker?.stop(2_000);
    await liveSender?.close();
    await live.close();
    await reaper.stop();
    await settings.close();
    await chatFeed.close();
    await listener.close();
    // The statistics counted since the last flush, once nothing runs here any more.
    await Promise.resolve(services.extensions.close()).catch((e: unknown) => console.warn(`[modex] extension statistics not saved: ${(e as Error).message}`));
    await dispatch.stop();
    await engine.close();
    await db.close();
  };
  return { ...services, close };
}
