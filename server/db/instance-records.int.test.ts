import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openGraphDatabase, type Database } from "./graph-database";
import { commitDeferred } from "./deferred-transaction";
import { SqliteGraphInstanceStore } from "./sqlite-instance-store";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** Latest records are built from the changing columns and the version's remembered fixed parts. */
describe("instance records", () => {
  let temp: TempDatabase;
  let other: Database;
  let store: SqliteGraphInstanceStore;
  beforeEach(() => {
    temp = tempDatabase();
    other = openGraphDatabase(temp.file);
    store = new SqliteGraphInstanceStore(temp.db);
  });
  /** A new instance commits with its run's first node; these tests have none. */
  const create = (graphName: string) => {
    const record = store.create({ graphName, nodeIdMap: { a: "node_a" }, input: { content: null } });
    commitDeferred(temp.db);
    return record;
  };
  afterEach(() => {
    other.close();
    temp[Symbol.dispose]();
  });

  it("answer what another connection changed in the row: status, attrs, times", () => {
    const { instanceId } = create("g");
    other
      .prepare(`UPDATE graph_instances SET status = 'paused', attrs = '{"k":1}', updated_at = 7 WHERE instance_id = ?`)
      .run(instanceId);
    expect(store.load(instanceId)).toMatchObject({ status: "paused", attrs: { k: 1 }, updatedAt: 7, nodeIdMap: { a: "node_a" } });
  });

  it("read a re-created row afresh, not the remembered parts of the one it replaced", () => {
    const { instanceId, createdAt } = create("g");
    other.prepare("DELETE FROM graph_instances WHERE instance_id = ?").run(instanceId);
    other
      .prepare(
        `INSERT INTO graph_instances (instance_id, version, is_latest, status, graph_name, spec_id, node_id_map, attrs, state, created_at, updated_at)
         VALUES (?, 1, 1, 'running', 'h', 'spec', '{"b":"node_b"}', '{}', NULL, ?, ?)`,
      )
      .run(instanceId, createdAt + 1, createdAt + 1);
    expect(store.load(instanceId)).toMatchObject({ graphName: "h", specId: "spec", nodeIdMap: { b: "node_b" } });
  });

  it("never share their attrs, and a caller changing a record changes nothing remembered", () => {
    const { instanceId } = create("g");
    const first = store.load(instanceId)!;
    (first.attrs as Record<string, unknown>).k = 1;
    (first as { graphName: string }).graphName = "changed";
    expect(store.load(instanceId)).toMatchObject({ graphName: "g", attrs: {} });
  });
});
