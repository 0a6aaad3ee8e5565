import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCoordinatorConformance } from "@/server/graph/persistence/conformance/coordinator.conformance";
import { describeDeliverStoreConformance } from "@/server/graph/persistence/conformance/deliver-store.conformance";
import { describeInstanceStoreConformance } from "@/server/graph/persistence/conformance/instance-store.conformance";
import { describeNodeStateStoreConformance } from "@/server/graph/persistence/conformance/node-state-store.conformance";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import { PgCoordinator } from "./pg-coordinator";
import type { PgEngineDatabase } from "./pg-database";
import { PgDeliverStore } from "./pg-deliver-store";
import { PgGraphInstanceStore } from "./pg-instance-store";
import { PgNodeStateStore } from "./pg-node-state-store";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * The shared conformance suites on the real PostgreSQL server: one fresh database for this file, its
 * engine tables emptied before every test; each subject gets its own connections (pools), closed after.
 */
let database: PgTestDatabase;
beforeAll(async () => {
  database = await PgTestDatabase.create();
});
afterAll(async () => {
  await database?.[Symbol.asyncDispose]();
});

function onEmptyTables<T extends object>(create: (db: PgEngineDatabase) => T) {
  const connections = new WeakMap<object, PgEngineDatabase>();
  return {
    make: async () => {
      await database.truncate();
      const db = database.open();
      const subject = create(db);
      connections.set(subject, db);
      return subject;
    },
    connections,
    cleanup: async (subject: object) => connections.get(subject)?.close(),
  };
}

const instances = onEmptyTables((db) => new PgGraphInstanceStore(db));
describeInstanceStoreConformance("postgresql", instances.make, { cleanup: instances.cleanup });

const nodes = onEmptyTables((db) => new PgNodeStateStore(db));
describeNodeStateStoreConformance("postgresql", nodes.make, { cleanup: nodes.cleanup });

const delivers = onEmptyTables((db) => new PgDeliverStore(db));
describeDeliverStoreConformance("postgresql", delivers.make, { cleanup: delivers.cleanup });

const coordinators = onEmptyTables((db) => new PgCoordinator(db));
describeCoordinatorConformance("postgresql", coordinators.make, {
  cleanup: coordinators.cleanup,
  // A restart: the crashed coordinator's connections close, a new coordinator opens its own. The
  // suite's crash points are "after this step returned": PgCoordinator holds a completion until the
  // next statement or the next macrotask (SqliteCoordinator until the next microtask), so the crashed
  // one writes what it holds first. A kill while a completion is held (it is then lost, and the node
  // runs again) is what pg-crash-recovery.int.test.ts does to real processes.
  restart: async (crashed: GraphPersistenceCoordinator) => {
    await (crashed as PgCoordinator).flush();
    await coordinators.cleanup(crashed);
    const db = database.open();
    const next = new PgCoordinator(db);
    coordinators.connections.set(next, db);
    return next;
  },
});

describe("PgGraphInstanceStore: attrs holding U+0000", () => {
  it("are written (jsonb refuses the character, so it is kept as the text \\u0000); the rest is unchanged", async () => {
    const store = await instances.make();
    try {
      const nul = "a\u0000b";
      const created = await store.create({ graphName: "g", nodeIdMap: {}, input: { content: nul }, attrs: { note: nul } });
      expect(created.attrs).toEqual({ note: "a\\u0000b" });
      // What a pause writes when the human-input prompt carries the character (a `"\0"` in the spec's YAML).
      await store.updateAttrs(created.instanceId, { waiting_for: { prompt: nul, path: "C:\\u0000" } });
      expect((await store.load(created.instanceId))?.attrs).toEqual({
        note: "a\\u0000b",
        waiting_for: { prompt: "a\\u0000b", path: "C:\\u0000" },
      });
      expect((await store.ioRecords(created.instanceId))[0].input).toEqual({ content: nul });
    } finally {
      await instances.cleanup(store);
    }
  });
});
