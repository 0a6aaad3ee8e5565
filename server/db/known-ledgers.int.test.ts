import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NodeInvocation } from "@/server/graph/persistence/records";
import { flushPendingWrites } from "./deferred-transaction";
import { knownLedger } from "./known-ledgers";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { readConsumable } from "./sqlite-deliver-store";
import { ledgerRow } from "./testing/ledger-rows";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** The in-memory ledger of a created instance answers what the table would, after every kind of step. */
describe("in-memory deliver ledgers", () => {
  let temp: TempDatabase;
  let c: SqliteCoordinator;
  let instanceId: string;
  const nodes = ["a", "b", "c", "j"];
  beforeEach(() => {
    temp = tempDatabase();
    c = new SqliteCoordinator(temp.db);
    instanceId = c.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } }).instanceId;
  });
  afterEach(() => temp[Symbol.dispose]());

  const open = (node: string) => c.openInvocation({ instanceId, nodeId: `node_${node}`, nodeName: node });
  const row = (from: NodeInvocation | null, target: string, content: unknown) => ledgerRow(instanceId, from, target, content);
  const shape = (rows: { deliverId: string; status: string; consumedByInvocationId: string | null }[]) =>
    rows.map((r) => [r.deliverId, r.status, r.consumedByInvocationId]);
  const fromTable = (node: string) =>
    temp.db
      .prepare(
        `SELECT deliver_id, status, consumed_by FROM deliver_rows
         WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
      )
      .raw()
      .all(instanceId, `node_${node}`);
  const agree = () => {
    flushPendingWrites(temp.db);
    for (const node of nodes) expect(shape(readConsumable(temp.db, instanceId, `node_${node}`).rows)).toEqual(fromTable(node));
  };

  it("follows completions, claims, promotions, an interrupt's cancel and an external deliver", () => {
    const a = open("a").invocation;
    c.completeInvocation(a, [row(a, "b", 1), row(a, "c", 2)]);
    c.promoteConsumed(a);
    expect(knownLedger(temp.db, instanceId)).toBeDefined();
    agree();

    const b = open("b");
    expect(b.inputs.map((r) => r.content)).toEqual([1]);
    agree(); // b's claim written
    c.completeInvocation(b.invocation, [row(b.invocation, "j", "from b")]);
    c.promoteConsumed(b.invocation);
    agree();

    const cc = open("c");
    c.cancelInvocation(cc.invocation, "interrupt"); // its input stays claimed, offered again
    agree();
    const retry = open("c");
    expect(retry.inputs.map((r) => [r.content, r.status])).toEqual([[2, "CONSUMED_PENDING"]]);
    c.completeInvocation(retry.invocation, [row(retry.invocation, "j", "from c")]);
    c.promoteConsumed(retry.invocation);
    agree();

    c.delivers.appendPending(row(null, "j", "external"));
    agree();
    const j = open("j");
    expect(j.inputs.map((r) => r.content)).toEqual(["from b", "from c", "external"]);
    c.completeInvocation(j.invocation, []);
    c.promoteConsumed(j.invocation);
    agree();
    expect(fromTable("j")).toEqual([]);
  });

  it("is forgotten by a store write outside the lifecycle, and by a status change; the table answers", () => {
    const a = open("a").invocation;
    c.completeInvocation(a, [row(a, "b", 1)]);
    c.delivers.promoteConsumed(a.invocationId);
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    agree();

    const other = c.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } }).instanceId;
    expect(knownLedger(temp.db, other)).toBeDefined();
    c.instances.transition(other, "paused");
    expect(knownLedger(temp.db, other)).toBeUndefined();
  });

  it("is forgotten when the deferred steps roll back", () => {
    const a = open("a").invocation;
    const refused = { ...row(a, "b", 1), targetNodeId: null as unknown as string };
    expect(() => c.completeInvocation(a, [row(a, "c", 2), refused])).toThrow(/NOT NULL/);
    expect(knownLedger(temp.db, instanceId)).toBeUndefined();
    agree();
  });
});
