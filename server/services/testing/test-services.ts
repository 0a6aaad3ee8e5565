import path from "node:path";
import { isPromise } from "@/server/graph/awaitable";
import { TempDatabase } from "@/server/db/testing/temp-database";
import type { AgentNodesOptions } from "../agent-nodes";
import { createAppServices, type AppServices, type AppServicesOptions } from "../app-services";
import { AuthService } from "../auth-service";
import type { StoredEvent } from "../event-log";

export const TEST_TOKEN = "test-token-0123456789abcdefghijklmnop";
export const EXAMPLE_SPECS_DIR = path.resolve(import.meta.dirname, "../../../config/graphs");
export const EXAMPLE_AGENTS_DIR = path.resolve(import.meta.dirname, "../../../config/agents");

/**
 * App services for a test, on a real temporary SQLite file (`sqlite`, the default) or in memory,
 * with the example specs loaded. Disposable: `await using s = await testServices()` waits for every
 * run to settle, then removes the database.
 */
export class TestServices implements AsyncDisposable {
  readonly services: AppServices;
  private readonly temp: TempDatabase | null;

  constructor(storage: "sqlite" | "memory" = "sqlite", agents?: AgentNodesOptions, options: Partial<AppServicesOptions> = {}) {
    this.temp = storage === "sqlite" ? new TempDatabase() : null;
    this.services = createAppServices({
      db: this.temp?.db,
      auth: new AuthService(TEST_TOKEN),
      heartbeatMs: 0,
      drainWaitMs: 2_000,
      // The example agents, which the example specs name (review-cycle, research-team).
      agents: { agentsDir: EXAMPLE_AGENTS_DIR, ...agents },
      ...options,
    });
    const loaded = this.services.specs.loadDirectory(EXAMPLE_SPECS_DIR);
    if (isPromise(loaded)) throw new Error("test services load their specs synchronously (SQLite or memory)");
    if (loaded.failed.length > 0) throw new Error(`example specs failed: ${JSON.stringify(loaded.failed)}`);
  }

  /** Resolves with the first logged event of `instanceId` matching `match` (past or future). */
  waitForEvent(instanceId: string, match: (e: StoredEvent) => boolean, timeoutMs = 5_000): Promise<StoredEvent> {
    return new Promise((resolve, reject) => {
      // Listening before reading the log: an event announced while it is read is not missed.
      const done = (e: StoredEvent) => {
        clearTimeout(timer);
        off();
        resolve(e);
      };
      const timer = setTimeout(() => (off(), reject(new Error(`no matching event of ${instanceId} in ${timeoutMs} ms`))), timeoutMs);
      const off = this.services.bus.subscribe(instanceId, (e) => {
        if (match(e)) done(e);
      });
      void Promise.resolve(this.services.events.list(instanceId)).then((past) => {
        const found = past.find(match);
        if (found) done(found);
      }, reject);
    });
  }

  /** The database file (sqlite storage only): open a second connection to see what is committed. */
  get databaseFile(): string | null {
    return this.temp?.file ?? null;
  }

  async settled(instanceId: string) {
    await this.services.orchestrator.settled(instanceId);
    return (await this.services.orchestrator.coordinator.instances.load(instanceId))!;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.services.recovery.stop();
    this.services.triggers.end();
    await this.services.notifications.end();
    await this.services.orchestrator.drainAll();
    this.temp?.[Symbol.dispose]();
  }
}

export const testServices = (storage: "sqlite" | "memory" = "sqlite", agents?: AgentNodesOptions, options?: Partial<AppServicesOptions>) =>
  new TestServices(storage, agents, options);
