import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeGraphDatabase } from "./graph-database";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** Version chains kept in memory for instances this connection created agree with the table's. */
describe("in-memory version chains", () => {
  let temp: TempDatabase;
  beforeEach(() => {
    temp = tempDatabase();
  });
  afterEach(() => temp[Symbol.dispose]());

  const begin = (c: SqliteCoordinator, instanceId: string) => c.openInvocation({ instanceId, nodeId: "node_a", nodeName: "a" }).invocation;

  it("a created instance's begins number versions and parents as the table would", async () => {
    const c = new SqliteCoordinator(temp.db);
    const { instanceId } = c.instances.create({ graphName: "g", nodeIdMap: { a: "node_a" }, input: { content: 1 } });
    const first = begin(c, instanceId);
    c.completeInvocation(first, []);
    const cancelled = begin(c, instanceId);
    c.cancelInvocation(cancelled, "interrupt");
    const third = begin(c, instanceId);
    expect([first, cancelled, third].map((i) => [i.version, i.parentVersion])).toEqual([
      [1, null],
      [2, 1],
      [3, 1],
    ]);
    c.completeInvocation(third, []);
    closeGraphDatabase(temp.db);
    // A new connection knows nothing in memory: it reads the chain from the table.
    const after = new SqliteCoordinator(temp.reopen());
    expect(begin(after, instanceId)).toMatchObject({ version: 4, parentVersion: 3 });
  });

  it("a rolled-back begin is forgotten: the next begin reads the chain from the table", () => {
    const c = new SqliteCoordinator(temp.db);
    const { instanceId } = c.instances.create({ graphName: "g", nodeIdMap: { a: "node_a" }, input: { content: 1 } });
    const first = begin(c, instanceId);
    // A completion that fails after its compare-and-swap (a row the table refuses) rolls the deferred
    // steps back, the begin included.
    const row = {
      deliverId: "d1",
      instanceId,
      sourceNode: "a",
      sourceNodeId: "node_a",
      sourceInvocationId: first.invocationId,
      targetNode: "b",
      targetNodeId: null as unknown as string,
      content: null,
      createdAt: Date.now(),
    };
    expect(() => c.completeInvocation(first, [row])).toThrow(/NOT NULL/);
    expect(begin(c, instanceId)).toMatchObject({ version: 1, parentVersion: null });
  });
});
