import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventWriter } from "@/server/cluster/event-writer";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgCoordinator } from "@/server/db/pg/pg-coordinator";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";
import { PgDeliverStore } from "@/server/db/pg/pg-deliver-store";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { PgNodeStateStore } from "@/server/db/pg/pg-node-state-store";
import { PgStateSnapshots } from "@/server/db/pg/pg-state-snapshots";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import type { EngineEvent } from "@/server/graph/events";
import { describeEventLogConformance } from "./conformance/event-log.conformance";
import { describeInstanceArchiveConformance } from "./conformance/instance-archive.conformance";
import { describeInstanceListingConformance } from "./conformance/instance-listing.conformance";
import { describeStateSnapshotsConformance } from "./conformance/state-snapshots.conformance";
import { PgEventLog } from "./pg-event-log";
import { PgTokenTotals } from "./extensions/pg-token-totals";
import { PgInstanceArchive } from "./pg-instance-archive";
import { PgInstanceListing } from "./pg-instance-listing";

/**
 * The instance stores' conformance suites on the real PostgreSQL server (instance-stores.int.test.ts runs
 * them in memory and on SQLite): one fresh database for this file, its tables emptied before every
 * test; each subject gets its own connections, closed after.
 */
let database: PgTestDatabase;
beforeAll(async () => {
  database = await PgTestDatabase.create();
});
afterAll(async () => {
  await database?.[Symbol.asyncDispose]();
});

const APP_TABLES = ["archived_instances", "state_snapshots"];

function onEmptyTables<T extends object>(create: (db: PgEngineDatabase, open: () => PgEngineDatabase) => T) {
  const connections = new WeakMap<object, PgEngineDatabase[]>();
  return {
    make: async () => {
      await database.truncate();
      const opened = [database.open()];
      await opened[0].acks.query({ text: `TRUNCATE ${APP_TABLES.join(", ")}` });
      const subject = create(opened[0], () => {
        const other = database.open();
        opened.push(other);
        return other;
      });
      connections.set(subject, opened);
      return subject;
    },
    cleanup: async (subject: object) => {
      for (const db of connections.get(subject) ?? []) await db.close();
    },
  };
}

const saveSnapshot = (db: PgEngineDatabase) => async (invocationId: string, json: string) => {
  await db.acks.query({ text: `INSERT INTO state_snapshots (invocation_id, state) VALUES ($1, $2::json)`, values: [invocationId, json] });
};

async function count(db: PgEngineDatabase, sql: string, ...values: unknown[]): Promise<number> {
  const { rows } = await db.acks.query<{ n: number }>({ text: sql, values });
  return rows[0].n;
}

const rowsOf = (db: PgEngineDatabase) => async (instanceId: string) => {
  const out: Record<string, number> = {};
  for (const table of ["graph_instances", "graph_io_records", "node_invocations", "deliver_rows", "engine_events", "archived_instances"]) {
    out[table] = await count(db, `SELECT COUNT(*)::int AS n FROM ${table} WHERE instance_id = $1`, instanceId);
  }
  out.state_snapshots = await count(db, `SELECT COUNT(*)::int AS n FROM state_snapshots WHERE invocation_id > $1 AND invocation_id < $2`, `${instanceId}.`, `${instanceId}/`);
  out.token_budget_totals = await count(db, `SELECT COUNT(*)::int AS n FROM token_budget_totals WHERE scope = $1`, instanceId);
  return out;
};

const events = onEmptyTables((db, open) => ({ log: new PgEventLog(db.acks), committed: new PgEventLog(open().acks) }));
describeEventLogConformance("postgresql", events.make, { cleanup: events.cleanup });

const listing = onEmptyTables((db) => ({ instances: new PgGraphInstanceStore(db), archive: new PgInstanceArchive(db.acks), listing: new PgInstanceListing(db.acks) }));
describeInstanceListingConformance("postgresql", listing.make, { cleanup: listing.cleanup, keepsEveryVersionState: true });

const archive = onEmptyTables((db) => ({
  instances: new PgGraphInstanceStore(db),
  archive: new PgInstanceArchive(db.acks),
  events: new PgEventLog(db.acks),
  durable: {
    nodes: new PgNodeStateStore(db),
    delivers: new PgDeliverStore(db),
    snapshots: new PgStateSnapshots(db.acks),
    saveSnapshot: saveSnapshot(db),
    rowsOf: rowsOf(db),
    tokens: new PgTokenTotals(db.acks),
  },
}));
describeInstanceArchiveConformance("postgresql", archive.make, { cleanup: archive.cleanup });

// A web process's stores query through one PgAppDatabase (its transactions joined by every store).
const apps = new WeakMap<object, PgAppDatabase>();
const onApp = <T extends object>(create: (db: PgEngineDatabase, app: PgAppDatabase) => T) => {
  const base = onEmptyTables((db) => {
    const app = PgAppDatabase.open({ url: database.url, applicationName: "modex-test" });
    const subject = create(db, app);
    apps.set(subject, app);
    return subject;
  });
  return { make: base.make, cleanup: async (subject: object) => (await base.cleanup(subject), await apps.get(subject)?.close()) };
};
const appEvents = onApp((db, app) => ({ log: new PgEventLog(app), committed: new PgEventLog(db.acks) }));
describeEventLogConformance("postgresql, through a PgAppDatabase", appEvents.make, { cleanup: appEvents.cleanup });
const appArchive = onApp((db, app) => ({
  instances: new PgGraphInstanceStore(db),
  archive: new PgInstanceArchive(app),
  events: new PgEventLog(app),
  durable: { nodes: new PgNodeStateStore(db), delivers: new PgDeliverStore(db), snapshots: new PgStateSnapshots(app), saveSnapshot: saveSnapshot(db), rowsOf: rowsOf(db), tokens: new PgTokenTotals(app) },
}));
describeInstanceArchiveConformance("postgresql, through a PgAppDatabase", appArchive.make, { cleanup: appArchive.cleanup });

// The coordinator commits steps on `db.steps`; the snapshots are read on the other pool.
const snapshots = onEmptyTables((db) => {
  const coordinator = new PgCoordinator(db);
  return { snapshots: new PgStateSnapshots(db.acks), saveSnapshot: saveSnapshot(db), coordinator, committed: () => coordinator.flush() };
});
describeStateSnapshotsConformance("postgresql", snapshots.make, { cleanup: snapshots.cleanup });

describe("PgEventLog and the cluster's EventWriter", () => {
  it("read the same rows, whichever of them wrote them", async () => {
    const subject = await events.make();
    try {
      const db = database.open();
      const writer = new EventWriter({ db: db.acks });
      const id = "shared-instance";
      const status: EngineEvent = { type: "instance_status", instanceId: id, version: 2, from: null, to: "running" };
      const drained = { type: "drained", instanceId: id, reason: "pause", finishing: ["a", "é"] } as EngineEvent;
      // A node event's version is its invocation's (the node's third run here), not the instance's.
      const started: EngineEvent = { type: "node_started", instanceId: id, node: "a", nodeId: "n_a", nodeInstance: "a#3", invocationId: `${id}.3`, version: 3 };
      const before = Date.now();
      writer.onEvent(status);
      writer.onEvent(started);
      writer.onEvent(drained);
      await writer.flush();
      const appended = await subject.log.append({ instanceId: id, version: 2, event: status });
      writer.onEvent(drained);
      await writer.flush();
      const rows = await subject.log.list(id);
      expect(rows.map((r) => [r.version, r.event])).toEqual([
        [2, status],
        [2, started],
        [2, drained],
        [2, status],
        [2, drained],
      ]);
      expect(rows[3]).toEqual(appended);
      expect(rows.every((r) => r.at >= before && r.at <= Date.now())).toBe(true);
      expect(await subject.log.listVersion(id, { version: 2, offset: 2, limit: 2 })).toEqual(rows.slice(2, 4));
      await db.close();
    } finally {
      await events.cleanup(subject);
    }
  });
});
