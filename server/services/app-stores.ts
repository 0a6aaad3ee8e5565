import type { Database } from "@/server/db/graph-database";
import { SqliteCoordinatorFactory } from "@/server/db/sqlite-coordinator";
import { SqliteSpanSink } from "@/server/db/sqlite-span-sink";
import { SqliteStateSnapshots } from "@/server/db/state-snapshots";
import type { SpanSink, TurnRootIndex } from "@/server/agent/trace/span-record";
import type { CoordinatorFactory } from "@/server/graph/persistence/coordinator";
import { InMemoryCoordinatorFactory } from "@/server/graph/persistence/factories";
import { InMemoryAgentStore, type AgentStore } from "./agents/agent-store";
import type { AgentMemory } from "./agent-nodes";
import { SqliteAgentMemory } from "./agents/sqlite-agent-memory";
import { SqliteAgentStore } from "./agents/sqlite-agent-store";
import type { ChatStore } from "./chat/chat-store";
import { SqliteChatStore } from "./chat/sqlite-chat-store";
import { inMemoryDurability, type Durability } from "./durability";
import { InMemoryEventLog, type EventLog } from "./event-log";
import { InMemoryIdempotencyStore, SqliteIdempotencyStore, type IdempotencyStore } from "./idempotency-store";
import { memoryInstanceArchive, sqliteInstanceArchive, type InstanceArchive } from "./instance-archive";
import { memoryInstanceCounter, sqliteInstanceCounter, type InstanceCounter } from "./instance-counts";
import type { SnapshotStore } from "./instance-forks";
import { memoryInstanceListing, sqliteInstanceListing, type InstanceListing } from "./instance-listing";
import { InMemorySpecStore, type SpecStore } from "./spec-store";
import { sqliteDurability } from "./sqlite-durability";
import { SqliteEventLog } from "./sqlite-event-log";
import { SqliteSpecStore } from "./sqlite-spec-store";
import { InMemoryHookStore, SqliteHookStore, type HookStore } from "./triggers/hook-store";
import { InMemoryScheduleStore, SqliteScheduleStore, type ScheduleStore } from "./triggers/schedule-store";
import { InMemoryNotificationStore, type NotificationStore } from "./notifications/notification-store";
import { SqliteNotificationStore } from "./notifications/sqlite-notification-store";

/**
 * Everything the app stores, on one database: SQLite (the app), memory (unit tests), or PostgreSQL
 * (server/services/pg-app-stores.ts). createAppServices wires the services over a set of these.
 */
export interface AppStores {
  coordinators: CoordinatorFactory;
  durability: Durability;
  specs: SpecStore;
  events: EventLog;
  counter: InstanceCounter;
  archive: InstanceArchive;
  listing: InstanceListing;
  idempotency: IdempotencyStore;
  agents: AgentStore;
  /** Agent traces; none in memory (unit tests). */
  spans?: SpanSink;
  /** Each agent turn's root span, for the Traces list (the same store as `spans`). */
  turns?: TurnRootIndex;
  /** Chat sessions; none: the chat keeps them in memory. */
  chats?: ChatStore;
  /** Agent nodes' conversations, approvals and suspended turns; none: this process's memory. */
  agentMemory: AgentMemory | null;
  /** State snapshots for replay and fork; none in memory. */
  snapshots: SnapshotStore | null;
  schedules: ScheduleStore;
  hooks: HookStore;
  /** Outgoing notifications and their outbox. */
  notifications: NotificationStore;
}

export function sqliteAppStores(db: Database): AppStores {
  const spans = new SqliteSpanSink(db);
  return {
    coordinators: new SqliteCoordinatorFactory(db),
    durability: sqliteDurability(db),
    specs: new SqliteSpecStore(db),
    events: new SqliteEventLog(db),
    counter: sqliteInstanceCounter(db),
    archive: sqliteInstanceArchive(db),
    listing: sqliteInstanceListing(db),
    idempotency: new SqliteIdempotencyStore(db),
    agents: new SqliteAgentStore(db),
    spans,
    turns: spans,
    chats: new SqliteChatStore(db),
    agentMemory: new SqliteAgentMemory(db),
    snapshots: new SqliteStateSnapshots(db),
    schedules: new SqliteScheduleStore(db),
    hooks: new SqliteHookStore(db),
    notifications: new SqliteNotificationStore(db),
  };
}

export function memoryAppStores(): AppStores {
  const coordinators = new InMemoryCoordinatorFactory();
  const archive = memoryInstanceArchive();
  return {
    coordinators,
    durability: inMemoryDurability,
    specs: new InMemorySpecStore(),
    events: new InMemoryEventLog(),
    counter: memoryInstanceCounter(coordinators.create().instances),
    archive,
    listing: memoryInstanceListing(coordinators.create().instances, () => archive.archivedIds()),
    idempotency: new InMemoryIdempotencyStore(),
    agents: new InMemoryAgentStore(),
    agentMemory: null,
    snapshots: null,
    schedules: new InMemoryScheduleStore(),
    hooks: new InMemoryHookStore(),
    notifications: new InMemoryNotificationStore(),
  };
}
