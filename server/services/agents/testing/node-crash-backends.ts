import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import type { SpanRecord, SpanSink } from "@/server/agent/trace/span-record";
import { commitDeferred } from "@/server/db/deferred-transaction";
import { PgSpanSink } from "@/server/db/pg-span-sink";
import { SqliteSpanSink } from "@/server/db/sqlite-span-sink";
import type { Awaitable } from "@/server/graph/awaitable";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import type { AgentMemory } from "../../agent-nodes";
import { PgAgentMemory } from "../pg-agent-memory";
import { SqliteAgentMemory } from "../sqlite-agent-memory";

/**
 * Where the crash tests of agent-node turns keep their agent memory and spans: the real stores (SQLite
 * through a reopened connection, a restart; PostgreSQL through new pools, another process), while the
 * engine's ledger is an in-memory one whose crashed run never returns (its model call hangs: HangingAfter),
 * as a killed process's would.
 */
export interface CrashBackend {
  /** The memory of a process that starts now (the one before it is dead from here on). */
  restart(): AgentMemory;
  /** Where the running process stores its agent spans (the app's span table). */
  spans(): SpanSink & { trace(traceId: string): Awaitable<SpanRecord[]>; recentForSession(sessionId: string): Awaitable<SpanRecord[]> };
  /** Waits until what the running process wrote is committed. */
  settle(): Promise<void>;
}

/** SQLite: the first process on the temp file's connection, each restart on a reopened one. */
export function sqliteCrashBackend(temp: TempDatabase): CrashBackend {
  let started = false;
  return {
    restart: () => new SqliteAgentMemory(started ? temp.reopen() : ((started = true), temp.db)),
    spans: () => new SqliteSpanSink(temp.db),
    settle: async () => {
      await sleep(20);
      commitDeferred(temp.db);
    },
  };
}

/** PostgreSQL: each process on its own pools (a write is committed when its promise resolves). */
export function pgCrashBackend(database: PgTestDatabase): CrashBackend {
  let db: ReturnType<PgTestDatabase["open"]> | undefined;
  return {
    restart: () => new PgAgentMemory((db = database.open()).acks),
    spans: () => new PgSpanSink((db ??= database.open()).acks),
    settle: () => sleep(20),
  };
}

/** Polls `check` for up to 4 s, then asserts it. */
export async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await sleep(10);
  expect(check()).toBe(true);
}

/** `tests` on SQLite (a temp database per backend) and on PostgreSQL (one test database), as two describes. */
export function describeOnBothDatabases(title: string, tests: (backend: () => CrashBackend) => void): void {
  describe(`${title} on SQLite`, () => {
    const temps: TempDatabase[] = [];
    afterEach(() => temps.splice(0).forEach((t) => t[Symbol.dispose]()));
    tests(() => {
      const temp = new TempDatabase();
      temps.push(temp);
      return sqliteCrashBackend(temp);
    });
  });
  describe(`${title} on PostgreSQL`, () => {
    let database: PgTestDatabase;
    beforeAll(async () => {
      database = await PgTestDatabase.create();
    });
    afterAll(async () => {
      await database?.[Symbol.asyncDispose]();
    });
    tests(() => pgCrashBackend(database));
  });
}
