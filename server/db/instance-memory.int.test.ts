import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NodeInvocation } from "@/server/graph/persistence/records";
import { closeGraphDatabase, openGraphDatabase } from "./graph-database";
import { flushPendingWrites } from "./deferred-transaction";
import { knownChains } from "./invocation-chains";
import { knownLedger } from "./known-ledgers";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { readConsumable } from "./sqlite-deliver-store";
import { ledgerRow } from "./testing/ledger-rows";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** Through a pause, what a connection keeps of a run is taken back only when nobody else wrote. */
describe("parked instance memory", () => {
  let temp: TempDatabase;
  let c: SqliteCoordinator;
  let instanceId: string;
  beforeEach(() => {
    temp = tempDatabase();
    c = new SqliteCoordinator(temp.db);
    instanceId = c.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } }).instanceId;
  });
  afterEach(() => temp[Symbol.dispose]());

  const open = (coord: SqliteCoordinator, node: string) => coord.openInvocation({ instanceId, nodeId: `node_${node}`, nodeName: node });
  const row = (from: NodeInvocation | null, target: string, content: unknown) => ledgerRow(instanceId, from, target, content);
  /** a ran and delivered to b; b began and was interrupted (its input stays claimed); then the pause. */
  const runUntilPaused = () => {
    const a = open(c, "a").invocation;
    c.completeInvocation(a, [row(a, "b", "from a")]);
    c.promoteConsumed(a);
    c.cancelInvocation(open(c, "b").invocation, "interrupt");
    c.instances.transition(instanceId, "paused"); // parked: asking for it now would forget it
  };
  const tableRows = (node: string) =>
    temp.db
      .prepare(`SELECT content FROM deliver_rows WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`)
      .pluck()
      .all(instanceId, `node_${node}`)
      .map((json) => JSON.parse(json as string));

  it("is live again after a resume on the same connection, and agrees with the table", () => {
    runUntilPaused();
    c.instances.transition(instanceId, "running");
    expect(knownLedger(temp.db, instanceId)).toBeDefined();
    expect(knownChains(temp.db, instanceId)).toBeDefined();
    const retry = open(c, "b");
    expect(retry.invocation.version).toBe(2);
    expect(retry.inputs.map((r) => r.content)).toEqual(["from a"]);
    flushPendingWrites(temp.db);
    expect(tableRows("b")).toEqual(["from a"]);
    expect(c.delivers.listByStatus(instanceId, ["PENDING", "CONSUMED_PENDING"]).map((r) => r.content)).toEqual(["from a"]);
  });

  it("is dropped when another connection wrote while the instance was paused", () => {
    runUntilPaused();
    const other = openGraphDatabase(temp.file);
    try {
      const theirs = new SqliteCoordinator(other);
      theirs.delivers.appendPending(row(null, "b", "external"));
      const b = theirs.nodes.begin({ instanceId, nodeId: "node_b", nodeName: "b" });
      theirs.nodes.cancel(b.invocationId, "interrupt");
    } finally {
      closeGraphDatabase(other);
    }
    c.instances.transition(instanceId, "running");
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    const retry = open(c, "b");
    expect(retry.invocation.version).toBe(3); // versions 1 (ours) and 2 (theirs) are in the table
    expect(retry.inputs.map((r) => r.content)).toEqual(["from a", "external"]);
  });

  it("is dropped when this connection writes to the paused instance outside a run", () => {
    runUntilPaused();
    c.delivers.appendPending(row(null, "b", "external"));
    c.instances.transition(instanceId, "running");
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    expect(open(c, "b").inputs.map((r) => r.content)).toEqual(["from a", "external"]);
  });

  it("is dropped by any other status change of the paused instance", () => {
    runUntilPaused();
    c.instances.transition(instanceId, "stopped");
    expect(() => c.instances.transition(instanceId, "running")).toThrow(/stopped/);
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    expect(knownChains(temp.db, instanceId)).toBeUndefined();
  });
});
