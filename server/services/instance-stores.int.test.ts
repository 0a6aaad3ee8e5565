import { openGraphDatabase, type Database } from "@/server/db/graph-database";
import { onCommitted } from "@/server/db/deferred-transaction";
import { SqliteCoordinator } from "@/server/db/sqlite-coordinator";
import { SqliteDeliverStore } from "@/server/db/sqlite-deliver-store";
import { SqliteGraphInstanceStore } from "@/server/db/sqlite-instance-store";
import { SqliteNodeStateStore } from "@/server/db/sqlite-node-state-store";
import { saveSnapshot, SqliteStateSnapshots } from "@/server/db/state-snapshots";
import { tempDatabase, type TempDatabase } from "@/server/db/testing/temp-database";
import { InMemoryGraphInstanceStore } from "@/server/graph/persistence/memory-instance-store";
import { describeEventLogConformance } from "./conformance/event-log.conformance";
import { describeInstanceArchiveConformance } from "./conformance/instance-archive.conformance";
import { describeInstanceListingConformance } from "./conformance/instance-listing.conformance";
import { describeStateSnapshotsConformance } from "./conformance/state-snapshots.conformance";
import { InMemoryEventLog } from "./event-log";
import { SqliteTokenTotals } from "./extensions/token-totals-store";
import { memoryInstanceArchive, sqliteInstanceArchive } from "./instance-archive";
import { memoryInstanceListing, sqliteInstanceListing } from "./instance-listing";
import { SqliteEventLog } from "./sqlite-event-log";

/**
 * The instance stores' conformance suites on the in-memory stores and on SQLite (a fresh file per test);
 * pg-instance-stores.int.test.ts runs the same suites on PostgreSQL.
 */

/** Each subject remembers its temporary database (and any second connection) for cleanup. */
function onTempFiles<T extends object>(create: (temp: TempDatabase, open: () => Database) => T) {
  const opened = new WeakMap<object, { temp: TempDatabase; others: Database[] }>();
  return {
    make: () => {
      const temp = tempDatabase();
      const others: Database[] = [];
      const subject = create(temp, () => {
        const db = openGraphDatabase(temp.file);
        others.push(db);
        return db;
      });
      opened.set(subject, { temp, others });
      return subject;
    },
    cleanup: (subject: object): void => {
      const o = opened.get(subject);
      for (const db of o?.others ?? []) db.close();
      o?.temp[Symbol.dispose]();
    },
  };
}

const rowsOf = (db: Database) => async (instanceId: string) => {
  const count = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;
  const out: Record<string, number> = {};
  for (const table of ["graph_instances", "graph_io_records", "node_invocations", "deliver_rows", "engine_events", "archived_instances", "instance_search"]) {
    out[table] = count(`SELECT COUNT(*) AS n FROM ${table} WHERE instance_id = ?`, instanceId);
  }
  out.state_snapshots = count(`SELECT COUNT(*) AS n FROM state_snapshots WHERE invocation_id > ? AND invocation_id < ?`, `${instanceId}.`, `${instanceId}/`);
  out.token_budget_totals = count(`SELECT COUNT(*) AS n FROM token_budget_totals WHERE scope = ?`, instanceId);
  return out;
};

describeEventLogConformance("in-memory", () => ({ log: new InMemoryEventLog() }));
const sqliteEvents = onTempFiles((t, open) => ({ log: new SqliteEventLog(t.db), committed: new SqliteEventLog(open()) }));
describeEventLogConformance("sqlite", sqliteEvents.make, { cleanup: sqliteEvents.cleanup });

describeInstanceListingConformance("in-memory", () => {
  const instances = new InMemoryGraphInstanceStore();
  const archive = memoryInstanceArchive();
  return { instances, archive, listing: memoryInstanceListing(instances, () => archive.archivedIds()) };
});
const sqliteListing = onTempFiles((t) => ({ instances: new SqliteGraphInstanceStore(t.db), archive: sqliteInstanceArchive(t.db), listing: sqliteInstanceListing(t.db) }));
describeInstanceListingConformance("sqlite", sqliteListing.make, { cleanup: sqliteListing.cleanup, keepsEveryVersionState: true });

describeInstanceArchiveConformance("in-memory", () => ({ instances: new InMemoryGraphInstanceStore(), archive: memoryInstanceArchive(), events: new InMemoryEventLog() }));
const sqliteArchive = onTempFiles((t) => ({
  instances: new SqliteGraphInstanceStore(t.db),
  archive: sqliteInstanceArchive(t.db),
  events: new SqliteEventLog(t.db),
  durable: {
    nodes: new SqliteNodeStateStore(t.db),
    delivers: new SqliteDeliverStore(t.db),
    snapshots: new SqliteStateSnapshots(t.db),
    saveSnapshot: (invocationId: string, json: string) => saveSnapshot(t.db, invocationId, json),
    rowsOf: rowsOf(t.db),
    tokens: new SqliteTokenTotals(t.db),
  },
}));
describeInstanceArchiveConformance("sqlite", sqliteArchive.make, { cleanup: sqliteArchive.cleanup });

// Read through a second connection: it sees only what the coordinator committed.
const sqliteSnapshots = onTempFiles((t, open) => ({
  snapshots: new SqliteStateSnapshots(open()),
  saveSnapshot: (id: string, json: string) => saveSnapshot(t.db, id, json),
  coordinator: new SqliteCoordinator(t.db),
  committed: () => new Promise<void>((resolve) => onCommitted(t.db, resolve)),
}));
describeStateSnapshotsConformance("sqlite", sqliteSnapshots.make, { cleanup: sqliteSnapshots.cleanup });
