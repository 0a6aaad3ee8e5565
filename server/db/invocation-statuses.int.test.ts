import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NodeInvocation } from "@/server/graph/persistence/records";
import { closeGraphDatabase, openGraphDatabase } from "./graph-database";
import { knownNoneRunning, knownUnfinishedStatus } from "./invocation-statuses";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { ledgerRow } from "./testing/ledger-rows";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** What recovery asks of the invocation table, answered from memory only while memory is complete. */
describe("known invocation statuses", () => {
  let temp: TempDatabase;
  let c: SqliteCoordinator;
  let instanceId: string;
  beforeEach(() => {
    temp = tempDatabase();
    c = new SqliteCoordinator(temp.db);
    instanceId = c.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } }).instanceId;
  });
  afterEach(() => temp[Symbol.dispose]());

  const open = (node: string) => c.openInvocation({ instanceId, nodeId: `node_${node}`, nodeName: node }).invocation;
  const row = (from: NodeInvocation | null, target: string, content: unknown) => ledgerRow(instanceId, from, target, content);
  /** A fresh connection's view, from the table alone. */
  const fromTable = <T>(read: (other: SqliteCoordinator) => T): T => {
    c.flush();
    const other = openGraphDatabase(temp.file);
    try {
      return read(new SqliteCoordinator(other));
    } finally {
      closeGraphDatabase(other);
    }
  };

  it("a node that awaits is RUNNING for listRunning, and nothing is once it completes", () => {
    const a = open("a");
    expect(c.nodes.listRunning(instanceId).map((i) => i.invocationId)).toEqual([a.invocationId]);
    expect(knownNoneRunning(temp.db, instanceId)).toBe(false);
    c.completeInvocation(a, []);
    expect(knownNoneRunning(temp.db, instanceId)).toBe(true);
    expect(c.nodes.listRunning(instanceId)).toEqual([]);
  });

  it("an interrupted node is known CANCELLED through the pause, and recovery agrees with the table's", async () => {
    const a = open("a");
    c.completeInvocation(a, [row(a, "b", "from a")]);
    c.promoteConsumed(a);
    const b = open("b");
    c.cancelInvocation(b, "interrupt");
    c.instances.transition(instanceId, "paused");
    c.instances.transition(instanceId, "running");
    expect(knownUnfinishedStatus(temp.db, instanceId, b.invocationId)).toBe("CANCELLED");
    expect(knownNoneRunning(temp.db, instanceId)).toBe(true);
    const ours = await c.recover(instanceId);
    expect(ours).toEqual(await fromTable((other) => other.recover(instanceId)));
    expect(ours.pendingNodeIds).toEqual(["node_b"]);
  });

  it("a node left RUNNING is found when another connection wrote during the pause: memory is dropped, the table answers", async () => {
    open("a");
    c.flush(); // the begin commits RUNNING
    c.instances.transition(instanceId, "paused");
    const other = openGraphDatabase(temp.file);
    try {
      // Another writer while paused: this connection's memory of the run is not taken back.
      new SqliteCoordinator(other).delivers.appendPending(row(null, "a", "external"));
    } finally {
      closeGraphDatabase(other);
    }
    c.instances.transition(instanceId, "running");
    expect(knownNoneRunning(temp.db, instanceId)).toBe(false);
    expect((await c.recover(instanceId)).orphanedNodeIds).toEqual(["node_a"]);
  });

  it("keeps a bounded number of ended invocations; older ones are asked of the table", () => {
    const first = open("a");
    c.cancelInvocation(first, "interrupt");
    for (let i = 0; i < 70; i++) c.cancelInvocation(open("a"), "interrupt");
    expect(knownUnfinishedStatus(temp.db, instanceId, first.invocationId)).toBeUndefined();
    expect(c.nodes.get(first.invocationId)?.status).toBe("CANCELLED");
    expect(knownNoneRunning(temp.db, instanceId)).toBe(true);
  });
});
