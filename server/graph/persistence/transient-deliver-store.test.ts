import { describe, expect, it } from "vitest";
import { deliverRow, newId, nodeIdOf } from "./conformance/harness";
import type { NewDeliverRow } from "./records";
import { TransientDeliverStore } from "./transient-deliver-store";

/**
 * The Null coordinator's mailbox keeps the ledger's status machine for open rows and forgets a row
 * once its consumer completes. The DeliverStore conformance suite asks for history it does not keep,
 * so its open-row rules are restated here.
 */
describe("TransientDeliverStore", () => {
  const instanceId = "gi_transient";
  const row = (target: string, extra: Partial<Parameters<typeof deliverRow>[0]> = {}) => deliverRow({ instanceId, target, ...extra });
  const ids = (rows: readonly { deliverId: string }[]) => rows.map((r) => r.deliverId);
  const delivered = (store: TransientDeliverStore, rows: NewDeliverRow[]) => {
    store.stage(rows);
    for (const src of new Set(rows.map((r) => r.sourceInvocationId!))) store.promoteStaged(src);
    return rows;
  };

  it("keeps STAGED rows invisible until their source is promoted, then offers them in staging order", () => {
    const store = new TransientDeliverStore();
    const src = newId("inv");
    const rows = [row("b", { sourceInvocationId: src }), row("c", { sourceInvocationId: src }), row("b", { sourceInvocationId: src })];
    store.stage(rows);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([]);
    expect(store.listByStatus(instanceId, ["STAGED"])).toHaveLength(3);
    expect(store.promoteStaged(src)).toEqual(rows.map((r) => ({ ...r, status: "PENDING", consumedByInvocationId: null })));
    expect(ids(store.consumable(instanceId, nodeIdOf("b")))).toEqual([rows[0].deliverId, rows[2].deliverId]);
    expect(store.promoteStaged(src)).toEqual([]);
  });

  it("answers in insertion order, not promotion order", () => {
    const store = new TransientDeliverStore();
    const early = row("b");
    const external = row("b", { sourceInvocationId: null });
    const late = row("b");
    store.stage([early]);
    store.appendPending(external);
    store.stage([late]);
    store.promoteStaged(late.sourceInvocationId!);
    store.promoteStaged(early.sourceInvocationId!);
    const order = [early, external, late].map((r) => r.deliverId);
    expect(ids(store.consumable(instanceId, nodeIdOf("b")))).toEqual(order);
    expect(ids(store.listByInstance(instanceId))).toEqual(order);
  });

  it("claims rows by id even when they are not the last ones offered", () => {
    const store = new TransientDeliverStore();
    const [first, second] = delivered(store, [row("b"), row("c")]);
    store.consumable(instanceId, nodeIdOf("c"));
    const inv = newId("inv");
    store.markConsumed([first.deliverId], inv);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([{ ...first, status: "CONSUMED_PENDING", consumedByInvocationId: inv }]);
    expect(store.consumable(instanceId, nodeIdOf("c"))[0].status).toBe("PENDING");
    store.promoteConsumed(inv);
    expect(ids(store.listByInstance(instanceId))).toEqual([second.deliverId]);
  });

  it("re-offers claimed rows; only the latest claimant completes them, and then they are forgotten", () => {
    const store = new TransientDeliverStore();
    const [r] = delivered(store, [row("b")]);
    const first = newId("inv");
    const retry = newId("inv");
    store.markConsumed(ids(store.consumable(instanceId, nodeIdOf("b"))), first);
    store.markConsumed(ids(store.consumable(instanceId, nodeIdOf("b"))), retry);
    store.promoteConsumed(first);
    expect(store.listByStatus(instanceId, ["CONSUMED_PENDING"])).toEqual([{ ...r, status: "CONSUMED_PENDING", consumedByInvocationId: retry }]);
    store.promoteConsumed(retry);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([]);
    expect(store.listByInstance(instanceId)).toEqual([]);
  });

  it("never claims STAGED or completed rows", () => {
    const store = new TransientDeliverStore();
    const staged = row("b");
    store.stage([staged]);
    const [done] = delivered(store, [row("b")]);
    const inv = newId("inv");
    store.markConsumed([done.deliverId], inv);
    store.promoteConsumed(inv);
    store.markConsumed([staged.deliverId, done.deliverId], newId("inv"));
    expect(store.listByInstance(instanceId).map((r) => [r.deliverId, r.status])).toEqual([[staged.deliverId, "STAGED"]]);
  });

  it("returns snapshots: a row read earlier keeps its status", () => {
    const store = new TransientDeliverStore();
    delivered(store, [row("b")]);
    const [seen] = store.consumable(instanceId, nodeIdOf("b"));
    store.markConsumed([seen.deliverId], newId("inv"));
    expect(seen.status).toBe("PENDING");
    expect(seen.consumedByInvocationId).toBeNull();
  });

  it("keeps the rows still waiting when most of a target's rows are consumed one by one", () => {
    const store = new TransientDeliverStore();
    const rows = delivered(store, Array.from({ length: 40 }, (_, i) => row("b", { content: i })));
    for (const r of rows.slice(0, 30)) {
      const inv = newId("inv");
      store.markConsumed([r.deliverId], inv);
      store.promoteConsumed(inv);
    }
    expect(store.consumable(instanceId, nodeIdOf("b")).map((r) => r.content)).toEqual(rows.slice(30).map((_, i) => 30 + i));
  });

  it("discardStaged drops the staged rows of the given sources only", () => {
    const store = new TransientDeliverStore();
    const dropped = row("b");
    const kept = row("b");
    store.stage([dropped, kept]);
    store.discardStaged([dropped.sourceInvocationId!]);
    expect(ids(store.listByInstance(instanceId))).toEqual([kept.deliverId]);
    expect(store.promoteStaged(dropped.sourceInvocationId!)).toEqual([]);
  });

  it("isolates instances", () => {
    const store = new TransientDeliverStore();
    store.appendPending(row("b", { sourceInvocationId: null }));
    store.appendPending(deliverRow({ instanceId: "gi_other", target: "b", sourceInvocationId: null }));
    expect(store.consumable(instanceId, nodeIdOf("b"))).toHaveLength(1);
    expect(store.listByInstance("gi_other")).toHaveLength(1);
    expect(store.listByInstance("gi_missing")).toEqual([]);
  });

  /** The places of a graph's nodes, as the engine hands them to a begin. */
  const graphOf = (...names: string[]) => {
    const nodeIds = names.map(nodeIdOf);
    const positions = new Map(nodeIds.map((id, i) => [id, i]));
    return (name: string) => ({ index: names.indexOf(name), positions, nodeIds });
  };

  it("addresses a node by the position its graph gives, and by id for a node of any other graph", () => {
    const store = new TransientDeliverStore();
    const outer = graphOf("b", "c", "start");
    const inner = graphOf("x");
    const early = store.appendPending(row("b", { sourceInvocationId: null }));
    expect(store.claimConsumable(instanceId, nodeIdOf("start"), newId("inv"), outer("start"))).toEqual([]);
    const [toB, toC, toX] = store.publish([row("b"), row("c"), row("x")]);
    const fromInner = newId("inv");
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("x"), fromInner, inner("x")))).toEqual([toX.deliverId]);
    const c = newId("inv");
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("c"), c, outer("c")))).toEqual([toC.deliverId]);
    expect(ids(store.listByStatus(instanceId, ["PENDING"]))).toEqual([early.deliverId, toB.deliverId]);
    for (const inv of [fromInner, c]) store.promoteConsumed(inv);
    expect(ids(store.listByInstance(instanceId))).toEqual([early.deliverId, toB.deliverId]);
  });

  it("takes a published row's position from its deliverer only while that still names the row's target", () => {
    const store = new TransientDeliverStore();
    const graph = graphOf("a", "b", "c");
    store.claimConsumable(instanceId, nodeIdOf("a"), newId("inv"), graph("a"));
    // The deliverer says both rows went to c; only the second did.
    const from = { instanceId, nodeId: nodeIdOf("a"), nodeName: "a", binding: graph("a"), targetAt: () => 2 };
    const [toB, toC] = store.publish([row("b"), row("c")], from);
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("b"), newId("inv"), graph("b")))).toEqual([toB.deliverId]);
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("c"), newId("inv"), graph("c")))).toEqual([toC.deliverId]);
  });

  it("files a node's own outbox at the positions it names, and any other list by each row's target", () => {
    const store = new TransientDeliverStore();
    const graph = graphOf("a", "b", "c");
    store.claimConsumable(instanceId, nodeIdOf("a"), newId("inv"), graph("a"));
    const outbox = [row("b"), row("c"), row("c")];
    // The engine's outbox is exact by construction: its positions are taken without reading a row.
    const from = { instanceId, nodeId: nodeIdOf("a"), nodeName: "a", binding: graph("a"), outbox, targetAt: (k: number) => [1, 2, 2][k] };
    expect(store.publish(outbox, from)).toBe(outbox);
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("b"), newId("inv"), graph("b")))).toEqual([outbox[0].deliverId]);
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("c"), newId("inv"), graph("c")))).toEqual([outbox[1].deliverId, outbox[2].deliverId]);
    // A node of another graph: its positions mean nothing to these mailboxes, so each row's target is looked up.
    const other = graphOf("x", "b");
    const copy = [row("b")];
    store.publish(copy, { ...from, binding: other("x"), outbox: copy, targetAt: () => 0 });
    expect(ids(store.claimConsumable(instanceId, nodeIdOf("b"), newId("inv"), graph("b")))).toContain(copy[0].deliverId);
  });

  it("claims a lone row, then every row of a target, and forgets an instance once nothing waits", () => {
    const store = new TransientDeliverStore();
    const graph = graphOf("b", "a");
    store.claimConsumable(instanceId, nodeIdOf("a"), newId("inv"), graph("a"));
    const [first] = store.publish([row("b")]);
    const lone = newId("inv");
    expect(store.claimConsumable(instanceId, nodeIdOf("b"), lone, graph("b"))).toEqual([first]);
    const [second, third] = store.publish([row("b"), row("b")]);
    const all = newId("inv");
    expect(store.claimConsumable(instanceId, nodeIdOf("b"), all, graph("b"))).toEqual([
      { ...first, status: "CONSUMED_PENDING", consumedByInvocationId: lone },
      second,
      third,
    ]);
    store.promoteConsumed(lone);
    expect(store.listByInstance(instanceId)).toHaveLength(3);
    store.promoteConsumed(all);
    expect(store.listByInstance(instanceId)).toEqual([]);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([]);
  });
});
