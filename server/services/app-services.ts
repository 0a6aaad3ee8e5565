import type { Database } from "@/server/db/graph-database";
import { SqliteCoordinatorFactory } from "@/server/db/sqlite-coordinator";
import type { CoordinatorFactory } from "@/server/graph/persistence/coordinator";
import { InMemoryCoordinatorFactory } from "@/server/graph/persistence/factories";
import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { type AgentNodesOptions, createAgentSetup } from "./agent-nodes";
import type { AgentService } from "./agents/agent-service";
import { InMemoryAgentStore } from "./agents/agent-store";
import { SqliteAgentStore } from "./agents/sqlite-agent-store";
import { AuthService } from "./auth-service";
import { ChatService } from "./chat-service";
import { EventBus } from "./event-bus";
import { InMemoryEventLog, type EventLog } from "./event-log";
import { EventRecorder } from "./event-recorder";
import { currentExecutor, type ExecutorIdentity } from "./executor-identity";
import { GraphControlService } from "./graph-control-service";
import { GraphOrchestrator } from "./graph-orchestrator";
import { memoryInstanceCounter, sqliteInstanceCounter } from "./instance-counts";
import { InstanceQueryService } from "./instance-query-service";
import { SpecService } from "./spec-service";
import { InMemorySpecStore, type SpecStore } from "./spec-store";
import { SqliteEventLog } from "./sqlite-event-log";
import { SqliteSpecStore } from "./sqlite-spec-store";
import { StaleInstanceSweeper } from "./stale-instance-sweeper";

/** Every use case of the app, wired once per process (see `server/services/app-services-singleton.ts`). */
export interface AppServices {
  readonly auth: AuthService;
  readonly specs: SpecService;
  readonly orchestrator: GraphOrchestrator;
  readonly control: GraphControlService;
  readonly instances: InstanceQueryService;
  readonly events: EventLog;
  readonly bus: EventBus;
  readonly sweeper: StaleInstanceSweeper;
  readonly executor: ExecutorIdentity;
  readonly chat: ChatService;
  /** Named agents (config/agents, the Agents page) and the tool catalog. */
  readonly agents: AgentService;
}

export interface AppServicesOptions {
  auth: AuthService;
  /** A migrated SQLite database (the app), or none for in-memory stores (unit tests). */
  db?: Database;
  executor?: ExecutorIdentity;
  heartbeatMs?: number;
  drainWaitMs?: number;
  staleAfterMs?: number;
  /** Agent nodes: the model (or a scripted provider in tests) and the knowledge-base workspace. */
  agents?: AgentNodesOptions;
}

export function createAppServices(options: AppServicesOptions): AppServices {
  const { db } = options;
  const coordinators: CoordinatorFactory = db ? new SqliteCoordinatorFactory(db) : new InMemoryCoordinatorFactory();
  const specStore: SpecStore = db ? new SqliteSpecStore(db) : new InMemorySpecStore();
  const events: EventLog = db ? new SqliteEventLog(db) : new InMemoryEventLog();
  const bus = new EventBus();
  const recorder = new EventRecorder(events, bus);
  const executor = options.executor ?? currentExecutor();
  const counter = db ? sqliteInstanceCounter(db) : memoryInstanceCounter(coordinators.create().instances);
  // Agents first: their definitions load before any spec that names one compiles.
  const agentSetup = createAgentSetup(options.agents ?? {}, db ? new SqliteAgentStore(db) : new InMemoryAgentStore());
  const specs = new SpecService(specStore, counter, new GraphSpecCompiler(agentSetup.registry));
  const orchestrator = new GraphOrchestrator({ coordinators, specs, recorder, executor, heartbeatMs: options.heartbeatMs });
  const control = new GraphControlService({ orchestrator, recorder, bus, drainWaitMs: options.drainWaitMs });
  const instances = new InstanceQueryService({ orchestrator, specs, events });
  const sweeper = new StaleInstanceSweeper({
    instances: coordinators.create().instances,
    recorder,
    executor,
    runsHere: (id) => orchestrator.isRunningHere(id),
    staleAfterMs: options.staleAfterMs,
  });
  const chat = agentSetup.chat({ specs, orchestrator, instances });
  return { auth: options.auth, specs, orchestrator, control, instances, events, bus, sweeper, executor, chat, agents: agentSetup.agents };
}

export interface StartupReport {
  specs: { loaded: string[]; created: string[]; failed: { file: string; message: string }[] };
  crashed: string[];
  recovered: string[];
}

/**
 * Start-up work, in order: load the spec folder (saveIfChanged), mark instances whose executor died
 * as CRASHED, then (fault recovery, on by default) re-run every CRASHED instance with bootstrap
 * RECOVERY; finally keep sweeping periodically.
 */
export async function startAppServices(
  services: AppServices,
  options: { specsDir?: string; recovery: boolean; sweepIntervalMs?: number },
): Promise<StartupReport> {
  const specs = options.specsDir ? services.specs.loadDirectory(options.specsDir) : { loaded: [], created: [], failed: [] };
  const crashed = await services.sweeper.sweep();
  const recovered: string[] = [];
  if (options.recovery) {
    const candidates = await services.orchestrator.coordinator.instances.list({ status: "crashed", limit: 10_000 });
    for (const instance of candidates) {
      try {
        await services.control.recover(instance.instanceId);
        recovered.push(instance.instanceId);
      } catch (error) {
        console.error(`[modex] could not recover ${instance.instanceId}:`, error instanceof Error ? error.message : error);
      }
    }
  }
  services.sweeper.start(options.sweepIntervalMs);
  return { specs, crashed, recovered };
}
