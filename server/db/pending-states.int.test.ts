import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InstanceStateError } from "@/server/graph/errors";
import { openGraphDatabase, type Database } from "./graph-database";
import { abortDeferred, commitDeferred } from "./deferred-transaction";
import { SqliteGraphInstanceStore } from "./sqlite-instance-store";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** A state save waits for the status change that follows it, and is written by its UPDATE. */
describe("held state saves", () => {
  let temp: TempDatabase;
  let other: Database;
  let store: SqliteGraphInstanceStore;
  let instanceId: string;
  beforeEach(() => {
    temp = tempDatabase();
    other = openGraphDatabase(temp.file);
    store = new SqliteGraphInstanceStore(temp.db);
    instanceId = store.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } }).instanceId;
    commitDeferred(temp.db);
    // Counts row updates of graph_instances on this connection (a temporary trigger writes no WAL).
    temp.db.exec(`CREATE TEMP TABLE updates (n INTEGER);
      CREATE TEMP TRIGGER count_updates AFTER UPDATE ON main.graph_instances BEGIN INSERT INTO updates VALUES (1); END;`);
  });
  afterEach(() => {
    other.close();
    temp[Symbol.dispose]();
  });

  const updates = () => temp.db.prepare("SELECT count(*) FROM updates").pluck().get();
  const committedState = () => {
    const json = other.prepare("SELECT state FROM graph_instances WHERE instance_id = ? AND is_latest = 1").pluck().get(instanceId);
    return json == null ? null : JSON.parse(json as string);
  };

  it("a pause writes the state saved before it in its own UPDATE: the row is updated once", () => {
    store.saveState(instanceId, { step: 1 });
    store.transition(instanceId, "paused");
    expect(updates()).toBe(1);
    expect(committedState()).toEqual({ step: 1 });
  });

  it("a state written at once (an instance whose record is not kept) supersedes an older held one", () => {
    // A node id map over 1 KB of JSON keeps no record, so a checkpoint is written at once, not held.
    const big = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`node${i}`, `node_01a22e1ae3cdDhyJUAybYG${i}`]));
    const id = store.create({ graphName: "g", nodeIdMap: big, input: { content: 1 } }).instanceId;
    commitDeferred(temp.db);
    store.saveStateJson(id, JSON.stringify({ step: "held" })); // a completion's save: held
    store.saveState(id, { step: "latest" }); // the pause's checkpoint
    store.transition(id, "paused");
    expect(other.prepare("SELECT state FROM graph_instances WHERE instance_id = ? AND is_latest = 1").pluck().get(id)).toBe('{"step":"latest"}');
  });

  it("is what loadState answers before anything commits", () => {
    store.saveState(instanceId, { step: 2 });
    expect(store.loadState(instanceId)).toEqual({ step: 2 });
    commitDeferred(temp.db);
    expect(committedState()).toEqual({ step: 2 });
  });

  it("commits with the deferred steps when no status change comes", () => {
    store.saveState(instanceId, { step: 3 });
    commitDeferred(temp.db);
    expect(committedState()).toEqual({ step: 3 });
  });

  it("is committed even when the status change is refused", () => {
    store.saveState(instanceId, { step: 4 });
    expect(() => store.transition(instanceId, "paused", ["crashed"])).toThrow(InstanceStateError);
    expect(committedState()).toEqual({ step: 4 });
  });

  it("is dropped by a rollback, and the same state saved again is written", () => {
    store.saveState(instanceId, { step: 5 });
    abortDeferred(temp.db);
    expect(committedState()).toBeNull();
    store.saveState(instanceId, { step: 5 });
    commitDeferred(temp.db);
    expect(committedState()).toEqual({ step: 5 });
  });

  it("still fails at once for an instance that does not exist", () => {
    expect(() => store.saveState("missing", { step: 6 })).toThrow();
  });
});
