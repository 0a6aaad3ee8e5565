import { describe, expect, it } from "vitest";
import { deliverRow, newId, nodeIdOf } from "./conformance/harness";
import { InMemoryDeliverStore } from "./memory-deliver-store";
import type { DeliverRow, NewDeliverRow } from "./records";

/**
 * What the in-memory ledger does beyond the conformance suite: it keeps rows as columns with no index
 * by id (a claim names the rows the last `consumable` offered, any other is looked for among the
 * waiting rows), lists open rows from a mark past the closed ones, and keeps every field across the
 * chunks its numeric fields move into past 1,024 rows.
 */
describe("InMemoryDeliverStore", () => {
  const instanceId = "gi_memory";
  const row = (target: string, extra: Partial<Parameters<typeof deliverRow>[0]> = {}) => deliverRow({ instanceId, target, ...extra });
  const ids = (rows: readonly { deliverId: string }[]) => rows.map((r) => r.deliverId);
  const as = (r: NewDeliverRow, status: DeliverRow["status"], consumedByInvocationId: string | null = null): DeliverRow => ({
    ...r,
    status,
    consumedByInvocationId,
  });
  const delivered = (store: InMemoryDeliverStore, rows: NewDeliverRow[]) => {
    store.stage(rows);
    for (const src of new Set(rows.map((r) => r.sourceInvocationId!))) store.promoteStaged(src);
    return rows;
  };

  it("claims rows by id when they are not the ones last offered", () => {
    const store = new InMemoryDeliverStore();
    const other = newId("gi");
    const [b, c] = delivered(store, [row("b"), row("c")]);
    const [elsewhere] = delivered(store, [deliverRow({ instanceId: other, target: "b" })]);
    store.consumable(instanceId, nodeIdOf("c"));
    const inv = newId("inv");
    store.markConsumed([b.deliverId, elsewhere.deliverId], inv);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([as(b, "CONSUMED_PENDING", inv)]);
    expect(store.consumable(other, nodeIdOf("b"))).toEqual([as(elsewhere, "CONSUMED_PENDING", inv)]);
    expect(store.consumable(instanceId, nodeIdOf("c"))).toEqual([as(c, "PENDING")]);
    store.promoteConsumed(inv);
    expect(store.listByInstance(instanceId)).toEqual([as(b, "CONSUMED_COMPLETED", inv), as(c, "PENDING")]);
    expect(store.listByInstance(other)).toEqual([as(elsewhere, "CONSUMED_COMPLETED", inv)]);
  });

  it("claims offered rows named in another order, or only some of them", () => {
    const store = new InMemoryDeliverStore();
    const [first, second, third] = delivered(store, [row("b"), row("b"), row("b")]);
    expect(ids(store.consumable(instanceId, nodeIdOf("b")))).toEqual(ids([first, second, third]));
    const inv = newId("inv");
    store.markConsumed([third.deliverId, first.deliverId], inv);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([
      as(first, "CONSUMED_PENDING", inv),
      as(second, "PENDING"),
      as(third, "CONSUMED_PENDING", inv),
    ]);
    store.promoteConsumed(inv);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([as(second, "PENDING")]);
  });

  it("claims rightly when the rows offered changed before the claim", () => {
    const store = new InMemoryDeliverStore();
    const [early] = delivered(store, [row("b")]);
    const lateSource = newId("inv");
    const late = row("b", { sourceInvocationId: lateSource });
    const between = row("b");
    store.stage([late]);
    store.appendPending(between);
    const offered = store.consumable(instanceId, nodeIdOf("b"));
    expect(ids(offered)).toEqual(ids([early, between]));
    // The late row is promoted in between: it is waiting ahead of `between` now.
    store.promoteStaged(lateSource);
    const inv = newId("inv");
    store.markConsumed(ids(offered), inv);
    expect(store.consumable(instanceId, nodeIdOf("b"))).toEqual([
      as(early, "CONSUMED_PENDING", inv),
      as(late, "PENDING"),
      as(between, "CONSUMED_PENDING", inv),
    ]);
    store.markConsumed([early.deliverId], newId("inv"));
    store.promoteConsumed(inv);
    expect(ids(store.listByStatus(instanceId, ["CONSUMED_COMPLETED"]))).toEqual([between.deliverId]);
  });

  it("claims nothing it does not hold, and no row the offer named once it completed", () => {
    const store = new InMemoryDeliverStore();
    const [r] = delivered(store, [row("b")]);
    const offered = store.consumable(instanceId, nodeIdOf("b"));
    const inv = newId("inv");
    store.markConsumed(ids(offered), inv);
    store.promoteConsumed(inv);
    store.consumable(instanceId, nodeIdOf("b"));
    store.markConsumed([r.deliverId, newId("d")], newId("inv"));
    expect(store.listByInstance(instanceId)).toEqual([as(r, "CONSUMED_COMPLETED", inv)]);
  });

  it("lists open rows past completed ones, and rows added after them", () => {
    const store = new InMemoryDeliverStore();
    const done = delivered(store, [row("b"), row("b"), row("c")]);
    const inv = newId("inv");
    store.markConsumed(ids(done), inv);
    store.promoteConsumed(inv);
    expect(store.listByStatus(instanceId, ["PENDING", "CONSUMED_PENDING"])).toEqual([]);
    const staged = row("c");
    store.stage([staged]);
    const [waiting] = delivered(store, [row("b")]);
    expect(ids(store.listByStatus(instanceId, ["STAGED", "PENDING"]))).toEqual(ids([staged, waiting]));
    expect(ids(store.listByStatus(instanceId, ["PENDING", "CONSUMED_COMPLETED"]))).toEqual(ids([...done, waiting]));
    store.discardStaged([staged.sourceInvocationId!]);
    expect(ids(store.listByStatus(instanceId, ["STAGED", "PENDING"]))).toEqual([waiting.deliverId]);
    expect(ids(store.listByInstance(instanceId))).toEqual(ids([...done, waiting]));
  });

  it("keeps each name a node id was delivered with", () => {
    const store = new InMemoryDeliverStore();
    const renamed = [row("b", { source: "a" }), { ...row("b", { source: "a" }), sourceNode: "a2", targetNode: "b2" }, row("b", { source: "a" })];
    delivered(store, renamed);
    expect(store.listByInstance(instanceId)).toEqual(renamed.map((r) => as(r, "PENDING")));
  });

  it("keeps every field of rows past the first chunk, in every listing", () => {
    const store = new InMemoryDeliverStore();
    const other = newId("gi");
    const rows: NewDeliverRow[] = [];
    for (let k = 0; k < 5000; k++) {
      const r = deliverRow({ instanceId: k % 3 ? instanceId : other, source: `s${k % 5}`, target: `t${k % 4}`, content: { k } });
      rows.push(r);
      if (k % 10 === 9) store.appendPending({ ...r, sourceInvocationId: null });
      else store.stage([r]);
      if (k % 10 < 7) store.promoteStaged(r.sourceInvocationId!);
    }
    const consumer = newId("inv");
    store.markConsumed(ids(store.consumable(instanceId, nodeIdOf("t1"))), consumer);
    store.promoteConsumed(consumer);
    const statusOf = (r: NewDeliverRow, k: number): DeliverRow => {
      const external = k % 10 === 9;
      const fields = external ? { ...r, sourceInvocationId: null } : r;
      if (k % 4 === 1 && k % 3 !== 0 && (k % 10 < 7 || external)) return as(fields, "CONSUMED_COMPLETED", consumer);
      return as(fields, k % 10 < 7 || external ? "PENDING" : "STAGED");
    };
    const expected = rows.map(statusOf);
    expect(store.listByInstance(instanceId)).toEqual(expected.filter((r) => r.instanceId === instanceId));
    expect(store.listByInstance(other)).toEqual(expected.filter((r) => r.instanceId === other));
    expect(store.listByStatus(instanceId, ["STAGED"])).toEqual(expected.filter((r) => r.instanceId === instanceId && r.status === "STAGED"));
    expect(store.consumable(other, nodeIdOf("t2"))).toEqual(
      expected.filter((r) => r.instanceId === other && r.targetNodeId === nodeIdOf("t2") && r.status === "PENDING"),
    );
  });
});
