import type { Database } from "@/server/db/graph-database";
import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { memoryAppStores, sqliteAppStores, type AppStores } from "./app-stores";
import { singleProcessStatus, type ClusterStatusSource } from "./cluster-status";
import type { Durability } from "./durability";
import type { EventLog } from "./event-log";
import { type AgentNodesOptions, createAgentSetup } from "./agent-nodes";
import type { AgentService } from "./agents/agent-service";
import type { AgentRuns } from "./agents/agent-runs";
import { AuthService } from "./auth-service";
import { ChatService } from "./chat-service";
import { TurnTraces } from "@/server/services/traces/turn-traces";
import { AgentUsage } from "./usage/agent-usage";
import { ModelPrices } from "./usage/model-prices";
import { EventBus } from "./event-bus";
import { EventRecorder } from "./event-recorder";
import { currentExecutor, type ExecutorIdentity } from "./executor-identity";
import { GraphControlService } from "./graph-control-service";
import type { InstanceControl } from "./instance-control";
import { InstanceBulkActions } from "./instance-bulk";
import type { InstanceLauncher } from "./instance-launcher";
import type { FireLock } from "./triggers/scheduler";
import { GraphOrchestrator } from "./graph-orchestrator";
import { InstanceQueryService } from "./instance-query-service";
import { IdempotencyService } from "./idempotency-service";
import { IdempotentCommands } from "./idempotent-commands";
import { InstanceRecovery } from "./instance-recovery";
import { SpecService } from "./spec-service";
import { StaleInstanceSweeper } from "./stale-instance-sweeper";
import { InstanceForks, type ForkStarter } from "./instance-forks";
import { LocalForkStarter } from "./local-fork-starter";
import { AppExtensions } from "./extensions/app-extensions";
import { extensionsNamedByAgents } from "./extensions/definition-extensions";
import { createTriggerServices, type TriggerServices } from "./triggers/trigger-services";
import { createNotificationServices, type NotificationServices } from "./notifications/notification-services";
import type { DispatcherOptions } from "./notifications/notification-dispatcher";

/** Every use case of the app, wired once per process (see `server/services/app-services-singleton.ts`). */
export interface AppServices {
  readonly auth: AuthService;
  readonly specs: SpecService;
  readonly orchestrator: GraphOrchestrator;
  /** The control plane: runs in this process (GraphControlService) or, on a PostgreSQL cluster, jobs for the workers. */
  readonly control: InstanceControl;
  readonly instances: InstanceQueryService;
  /** Archive, unarchive or delete many instances (named, or every one a list filter matches). */
  readonly bulk: InstanceBulkActions;
  readonly events: EventLog;
  readonly bus: EventBus;
  readonly sweeper: StaleInstanceSweeper;
  /** Marks orphaned instances CRASHED and (MODEX_RECOVERY=on) re-runs them: at start-up, periodically, after a storage failure. */
  readonly recovery: InstanceRecovery;
  readonly durability: Durability;
  /** Create, answer, deliver and reinvoke with an optional Idempotency-Key (REST and tRPC call these). */
  readonly commands: IdempotentCommands;
  readonly idempotency: IdempotencyService;
  readonly executor: ExecutorIdentity;
  readonly chat: ChatService;
  /** Named agents (config/agents, the Agents page) and the tool catalog. */
  readonly agents: AgentService;
  /** Agent nodes at work: streamed text of running turns, runs' knowledge bases. */
  readonly agentRuns: AgentRuns;
  /** The extensions every agent runs (config/extensions, the Extensions page). */
  readonly extensions: AppExtensions;
  /** Schedules and webhooks that start runs (the Triggers page). */
  readonly triggers: TriggerServices;
  /** Outgoing webhooks told when a run completes, fails, stops or waits for a person (the Triggers page). */
  readonly notifications: NotificationServices;
  /** The state and ledger at any event of a run, and forks from there. */
  readonly forks: InstanceForks;
  /** Agent nodes' token usage per node, model and instance, priced; their turns' traces. */
  readonly usage: AgentUsage;
  /** The newest finished agent turns (chats and graph runs) with where their traces are. */
  readonly traces: TurnTraces;
  /** The processes of the cluster, their leases and the work queue (PostgreSQL); this process alone on SQLite. */
  readonly clusterStatus: ClusterStatusSource;
  /** The agent folder loaded and the definitions read (at once on SQLite): specs that name agents compile after it. */
  readonly agentsLoaded: Promise<unknown> | undefined;
  /** Ends what the services hold open beyond the process's life (a cluster process's connections); tests call it. */
  readonly close?: () => Promise<void>;
}

export interface ClusterRuns {
  launcher(specs: SpecService): InstanceLauncher;
  control(deps: { archive: AppStores["archive"]; onDeleted: (instanceId: string) => void }): InstanceControl;
  /** Writes a fork with its job for the workers. */
  forks(): ForkStarter;
}

export interface AppServicesOptions {
  auth: AuthService;
  /** A migrated SQLite database (the app), or none for in-memory stores (unit tests). */
  db?: Database;
  /** Or the stores themselves (PostgreSQL: server/services/pg-app-stores.ts); they win over `db`. */
  stores?: AppStores;
  /**
   * A process of a PostgreSQL cluster (MODEX_ROLE web or all): instances are created and controlled as
   * jobs for the workers, none runs through this process's orchestrator, and the cluster's sweeper, not
   * this process, recovers instances.
   */
  cluster?: ClusterRuns;
  /** How the cluster's status is read (PostgreSQL); default: this single process. */
  clusterStatus?: ClusterStatusSource;
  /** Several processes share the schedules (PostgreSQL): one fires each due schedule. */
  fireLock?: FireLock;
  executor?: ExecutorIdentity;
  heartbeatMs?: number;
  drainWaitMs?: number;
  staleAfterMs?: number;
  /** This process holds the data directory's lock: any other executor's RUNNING instance is orphaned. */
  exclusive?: boolean;
  /** MODEX_RECOVERY: recover CRASHED instances automatically (default true). */
  autoRecovery?: boolean;
  /** Agent nodes: the model (or a scripted provider in tests) and the knowledge-base workspace. */
  agents?: AgentNodesOptions;
  /** The app's extensions (MODEX_EXTENSIONS_DIR); none registered when absent. */
  extensions?: AppExtensions;
  /** What model tokens cost (MODEX_MODEL_PRICES); none: usage is shown without costs. */
  modelPrices?: ModelPrices;
  /** This server's address for links sent out (MODEX_PUBLIC_URL); default http://localhost:3000. */
  publicUrl?: string;
  /** Tests: the notification dispatcher's retry delays, poll interval and timeout. */
  notificationDispatch?: Omit<DispatcherOptions, "store">;
}

export function createAppServices(options: AppServicesOptions): AppServices {
  const stores = options.stores ?? (options.db ? sqliteAppStores(options.db) : memoryAppStores());
  const { coordinators, events, durability, archive, listing } = stores;
  const bus = new EventBus();
  const recorder = new EventRecorder(events, bus);
  const executor = options.executor ?? currentExecutor();
  // Agents first: their definitions load before any spec that names one compiles.
  const extensions = options.extensions ?? new AppExtensions();
  const agentSetup = createAgentSetup({ ...options.agents, extensions: extensions.manager }, stores.agents, stores.spans, stores.agentMemory);
  const specs = new SpecService(stores.specs, stores.counter, new GraphSpecCompiler(agentSetup.registry), (refs) => triggersStarting(stores, refs));
  let recovery: InstanceRecovery | undefined;
  const orchestrator = new GraphOrchestrator({
    coordinators,
    specs,
    recorder,
    executor,
    durability,
    heartbeatMs: options.heartbeatMs,
    onOrphaned: (id) => recovery?.orphaned(id),
  });
  const instances = new InstanceQueryService({ orchestrator, specs, events, listing, archive });
  const onDeleted = (id: string) => {
    instances.forget(id);
    agentSetup.runs.forget(id);
  };
  const local = new GraphControlService({ orchestrator, recorder, durability, drainWaitMs: options.drainWaitMs, archive, onDeleted });
  const control = options.cluster?.control({ archive, onDeleted }) ?? local;
  const bulk = new InstanceBulkActions({ control, listing: instances });
  const launcher = options.cluster?.launcher(specs) ?? orchestrator;
  const runsHere = (id: string) => orchestrator.isRunningHere(id);
  const sweeper = new StaleInstanceSweeper({
    instances: coordinators.create().instances,
    recorder,
    executor,
    runsHere,
    exclusive: options.exclusive,
    staleAfterMs: options.staleAfterMs,
  });
  const idempotency = new IdempotencyService(stores.idempotency);
  const commands = new IdempotentCommands({ idempotency, launcher, control, instances: { load: (id) => orchestrator.coordinator.instances.load(id) } });
  recovery = new InstanceRecovery({
    instances: coordinators.create().instances,
    sweeper,
    control: local,
    runsHere,
    auto: options.autoRecovery ?? true,
    housekeeping: () => idempotency.prune(),
  });
  const chatStore = stores.chats;
  const prices = options.modelPrices ?? new ModelPrices(null);
  const chat = agentSetup.chat({ specs, orchestrator: launcher, instances }, chatStore, prices, options.cluster && { owner: executor.id });
  const usage = new AgentUsage({
    events,
    prices,
    spans: chatStore && ((session, turn) => chatStore.spans(session, turn)),
    defaultModel: options.agents?.model?.model,
  });
  const traces = new TurnTraces({
    index: stores.turns,
    chatTitle: async (id) => (await chat.get(id)).title,
    graphOf: async (id) => (await orchestrator.coordinator.instances.load(id))?.graphName ?? null,
    // A node's conversation is under `<instance>:<node>` in the agent memory, a chat's in the chat store.
    conversation: async (id) => (id.includes(":") ? ((await stores.agentMemory?.load(id)) ?? []) : ((await chatStore?.loadMemory(id)) ?? [])),
  });
  const triggers = createTriggerServices({ stores, specs, commands, orchestrator, control, instances, fireLock: options.fireLock });
  const notifications = createNotificationServices({
    store: stores.notifications,
    bus,
    specs,
    load: async (id) => orchestrator.coordinator.instances.load(id),
    publicUrl: options.publicUrl ?? "http://localhost:3000",
    dispatch: options.notificationDispatch,
  });
  const starter = options.cluster?.forks() ?? new LocalForkStarter({ orchestrator, durability, recorder, executor, snapshots: stores.snapshots });
  const forks = new InstanceForks({ orchestrator, specs, events, snapshots: stores.snapshots, starter });
  const agentsLoaded = Promise.all([agentSetup.loaded, agentSetup.agents.ready]).then(() => undefined);
  const clusterStatus = options.clusterStatus ?? singleProcessStatus({ executor, startedAt: new Date(), running: () => orchestrator.activeIds().length });
  return { agentsLoaded, clusterStatus, forks, auth: options.auth, specs, orchestrator, control, instances, bulk, events, bus, sweeper, recovery, durability, commands, idempotency, executor, chat, agents: agentSetup.agents, extensions, triggers, notifications, agentRuns: agentSetup.runs, usage, traces };
}

export interface StartupReport {
  specs: { loaded: string[]; created: string[]; failed: { file: string; message: string }[] };
  crashed: string[];
  recovered: string[];
}

/**
 * Start-up work, in order: load the spec folder (saveIfChanged), then one recovery pass (mark instances
 * whose executor is gone as CRASHED and, with automatic recovery, re-run them from the ledger); then
 * recovery keeps passing periodically and after any storage failure.
 */
export async function startAppServices(
  services: AppServices,
  options: { specsDir?: string; sweepIntervalMs?: number; /** False in a cluster's process: the cluster's sweeper recovers. */ recover?: boolean },
): Promise<StartupReport> {
  await services.agentsLoaded;
  const specs = options.specsDir ? await services.specs.loadDirectory(options.specsDir) : { loaded: [], created: [], failed: [] };
  await services.extensions.load(await extensionsNamedByAgents(services.agents)); // before any run, recovered ones included
  const { crashed, recovered } = options.recover === false ? { crashed: [], recovered: [] } : await services.recovery.pass();
  if (options.recover !== false) services.recovery.start(options.sweepIntervalMs);
  await services.triggers.begin(); // after recovery: a schedule's overlap check sees its previous run re-run
  services.notifications.begin();
  return { specs, crashed, recovered };
}

/**
 * The webhooks and app-made schedules that start runs of a spec, named by its name or a revision id in
 * `refs` (the schedules a spec declares go with it).
 */
async function triggersStarting(stores: Pick<AppStores, "schedules" | "hooks">, refs: ReadonlySet<string>): Promise<string[]> {
  const [schedules, hooks] = await Promise.all([stores.schedules.list(), stores.hooks.list()]);
  return [
    ...hooks.filter((h) => refs.has(h.spec)).map((h) => `webhook ${h.name}`),
    ...schedules.filter((s) => refs.has(s.spec) && s.declaredIn === null).map((s) => `schedule ${s.name}`),
  ];
}
