import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliverStore } from "../deliver-store";
import type { DeliverRow, NewDeliverRow } from "../records";
import { caught, type ConformanceOptions, deliverRow, type MakeSubject, newId, nodeIdOf } from "./harness";

const ids = (rows: readonly { deliverId: string }[]) => rows.map((r) => r.deliverId);
const statuses = (rows: readonly DeliverRow[]) => rows.map((r) => r.status);

/**
 * The DeliverStore contract: STAGED → PENDING → CONSUMED_PENDING → CONSUMED_COMPLETED, only PENDING and
 * CONSUMED_PENDING consumable, rows in insertion order, at-least-once with no dedup.
 */
export function describeDeliverStoreConformance(
  name: string,
  make: MakeSubject<DeliverStore>,
  options: ConformanceOptions<DeliverStore> = {},
): void {
  describe(`DeliverStore conformance: ${name}`, () => {
    let store: DeliverStore;
    let instanceId: string;
    beforeEach(async () => {
      store = await make();
      instanceId = await newInstance();
    });
    afterEach(async () => {
      await options.cleanup?.(store);
    });

    async function newInstance() {
      const id = newId("gi");
      await options.registerInstance?.(store, id);
      return id;
    }
    const row = (target: string, extra: Partial<Parameters<typeof deliverRow>[0]> = {}) =>
      deliverRow({ instanceId, target, ...extra });
    const consumable = async (target: string) => store.consumable(instanceId, nodeIdOf(target));
    const byId = async (deliverId: string) => (await store.listByInstance(instanceId)).find((r) => r.deliverId === deliverId);
    /** Stages rows and promotes them, as their source invocations complete. */
    const delivered = async (rows: NewDeliverRow[]) => {
      await store.stage(rows);
      for (const src of new Set(rows.map((r) => r.sourceInvocationId!))) await store.promoteStaged(src);
      return rows;
    };

    describe("staging and promotion", () => {
      it("keeps STAGED rows invisible to consumers", async () => {
        const r = row("b");
        await store.stage([r]);
        expect(await consumable("b")).toEqual([]);
        expect(statuses(await store.listByStatus(instanceId, ["STAGED"]))).toEqual(["STAGED"]);
      });

      it("stores every field as given", async () => {
        const r = row("b", { source: "a", content: { text: "hi", n: 2, list: [1, { deep: true }], none: null } });
        await store.stage([r]);
        expect(await store.listByInstance(instanceId)).toEqual([{ ...r, status: "STAGED", consumedByInvocationId: null }]);
      });

      it("promoteStaged makes a source's rows PENDING and returns them in staging order", async () => {
        const src = newId("inv");
        const rows = [row("b", { sourceInvocationId: src }), row("c", { sourceInvocationId: src }), row("b", { sourceInvocationId: src })];
        await store.stage(rows);
        const promoted = await store.promoteStaged(src);
        expect(promoted).toEqual(rows.map((r) => ({ ...r, status: "PENDING", consumedByInvocationId: null })));
        expect(ids(await consumable("b"))).toEqual([rows[0].deliverId, rows[2].deliverId]);
        expect(ids(await consumable("c"))).toEqual([rows[1].deliverId]);
      });

      it("promotes only the given source's rows", async () => {
        const mine = row("b");
        const other = row("b");
        await store.stage([mine, other]);
        await store.promoteStaged(mine.sourceInvocationId!);
        expect(ids(await consumable("b"))).toEqual([mine.deliverId]);
        expect((await byId(other.deliverId))!.status).toBe("STAGED");
      });

      it("returns nothing when promoting twice or promoting an unknown source", async () => {
        const r = row("b");
        await store.stage([r]);
        await store.promoteStaged(r.sourceInvocationId!);
        expect(await store.promoteStaged(r.sourceInvocationId!)).toEqual([]);
        expect(await store.promoteStaged(newId("missing"))).toEqual([]);
        expect(statuses(await store.listByInstance(instanceId))).toEqual(["PENDING"]);
      });

      it("discardStaged drops the STAGED rows of the given sources only", async () => {
        const dropped1 = row("b");
        const dropped2 = row("c");
        const kept = row("b");
        const done = row("b");
        await delivered([done]);
        await store.stage([dropped1, kept, dropped2]);
        await store.discardStaged([dropped1.sourceInvocationId!, dropped2.sourceInvocationId!, done.sourceInvocationId!]);
        expect(ids(await store.listByInstance(instanceId))).toEqual([done.deliverId, kept.deliverId]);
        expect(await store.promoteStaged(dropped1.sourceInvocationId!)).toEqual([]);
        expect(ids(await store.promoteStaged(kept.sourceInvocationId!))).toEqual([kept.deliverId]);
      });
    });

    describe("external delivers", () => {
      it("appendPending writes a visible PENDING row and returns it", async () => {
        const r = row("b", { sourceInvocationId: null, source: "__external__" });
        const appended = await store.appendPending(r);
        expect(appended).toEqual({ ...r, status: "PENDING", consumedByInvocationId: null });
        expect(await consumable("b")).toEqual([appended]);
      });
    });

    describe("consumption", () => {
      it("markConsumed claims rows for an invocation; they stay consumable (re-offered on retry)", async () => {
        const [r] = await delivered([row("b")]);
        const inv = newId("inv");
        await store.markConsumed([r.deliverId], inv);
        expect(await consumable("b")).toEqual([{ ...r, status: "CONSUMED_PENDING", consumedByInvocationId: inv }]);
      });

      it("offers PENDING and CONSUMED_PENDING rows together, in insertion order", async () => {
        const [claimed] = await delivered([row("b")]);
        await store.markConsumed([claimed.deliverId], newId("inv"));
        const fresh = await store.appendPending(row("b", { sourceInvocationId: null }));
        const rows = await consumable("b");
        expect(ids(rows)).toEqual([claimed.deliverId, fresh.deliverId]);
        expect(statuses(rows)).toEqual(["CONSUMED_PENDING", "PENDING"]);
      });

      it("lets a new invocation re-claim a CONSUMED_PENDING row", async () => {
        const [r] = await delivered([row("b")]);
        const first = newId("inv");
        const retry = newId("inv");
        await store.markConsumed([r.deliverId], first);
        await store.markConsumed([r.deliverId], retry);
        expect((await byId(r.deliverId))!.consumedByInvocationId).toBe(retry);
        await store.promoteConsumed(first);
        expect((await byId(r.deliverId))!.status).toBe("CONSUMED_PENDING");
        await store.promoteConsumed(retry);
        expect((await byId(r.deliverId))!.status).toBe("CONSUMED_COMPLETED");
      });

      it("promoteConsumed completes only that invocation's rows and hides them from consumers", async () => {
        const [mine, theirs, waiting] = await delivered([row("b"), row("b"), row("b")]);
        const inv = newId("inv");
        await store.markConsumed([mine.deliverId], inv);
        await store.markConsumed([theirs.deliverId], newId("inv"));
        await store.promoteConsumed(inv);
        expect(await byId(mine.deliverId)).toMatchObject({ status: "CONSUMED_COMPLETED", consumedByInvocationId: inv });
        expect(ids(await consumable("b"))).toEqual([theirs.deliverId, waiting.deliverId]);
        expect(statuses(await consumable("b"))).toEqual(["CONSUMED_PENDING", "PENDING"]);
      });

      it("does not claim STAGED or CONSUMED_COMPLETED rows", async () => {
        const staged = row("b");
        await store.stage([staged]);
        const [done] = await delivered([row("b")]);
        const inv = newId("inv");
        await store.markConsumed([done.deliverId], inv);
        await store.promoteConsumed(inv);
        await caught(() => store.markConsumed([staged.deliverId, done.deliverId], newId("inv")));
        expect(await byId(staged.deliverId)).toMatchObject({ status: "STAGED", consumedByInvocationId: null });
        expect(await byId(done.deliverId)).toMatchObject({ status: "CONSUMED_COMPLETED", consumedByInvocationId: inv });
      });

      it("ignores promoteConsumed for an invocation that claimed nothing", async () => {
        await delivered([row("b")]);
        await store.promoteConsumed(newId("inv"));
        expect(statuses(await consumable("b"))).toEqual(["PENDING"]);
      });
    });

    describe("ordering and at-least-once", () => {
      it("returns rows in insertion order, not promotion order", async () => {
        const early = row("b");
        const external = row("b", { sourceInvocationId: null });
        const late = row("b");
        await store.stage([early]);
        await store.appendPending(external);
        await store.stage([late]);
        await store.promoteStaged(late.sourceInvocationId!);
        await store.promoteStaged(early.sourceInvocationId!);
        const order = [early, external, late].map((r) => r.deliverId);
        expect(ids(await consumable("b"))).toEqual(order);
        expect(ids(await store.listByInstance(instanceId))).toEqual(order);
        expect(ids(await store.listByStatus(instanceId, ["PENDING"]))).toEqual(order);
      });

      it("keeps many rows from one source in order", async () => {
        const src = newId("inv");
        const rows = Array.from({ length: 20 }, (_, i) => row("b", { sourceInvocationId: src, content: i }));
        await delivered(rows);
        expect((await consumable("b")).map((r) => r.content)).toEqual(rows.map((_, i) => i));
      });

      it("delivers two rows with the same content twice (no dedup)", async () => {
        const src = newId("inv");
        const twin = { sourceInvocationId: src, content: { text: "same" } };
        await delivered([row("b", twin), row("b", twin)]);
        await store.appendPending(row("b", { sourceInvocationId: null, content: { text: "same" } }));
        await store.appendPending(row("b", { sourceInvocationId: null, content: { text: "same" } }));
        const rows = await consumable("b");
        expect(rows).toHaveLength(4);
        expect(new Set(ids(rows)).size).toBe(4);
        const inv = newId("inv");
        await store.markConsumed(ids(rows), inv);
        await store.promoteConsumed(inv);
        expect(statuses(await store.listByInstance(instanceId))).toEqual(Array(4).fill("CONSUMED_COMPLETED"));
      });

      it("isolates rows of other targets and other instances", async () => {
        const other = await newInstance();
        const mine = await store.appendPending(row("b", { sourceInvocationId: null }));
        await store.appendPending(row("c", { sourceInvocationId: null }));
        await store.appendPending(deliverRow({ instanceId: other, target: "b", sourceInvocationId: null }));
        expect(ids(await consumable("b"))).toEqual([mine.deliverId]);
        expect(await store.listByInstance(instanceId)).toHaveLength(2);
        expect(await store.listByInstance(other)).toHaveLength(1);
        expect(await store.consumable(other, nodeIdOf("c"))).toEqual([]);
        expect(await store.listByInstance(newId("missing"))).toEqual([]);
      });
    });

    describe("listing", () => {
      it("listByStatus filters by any set of statuses, in insertion order", async () => {
        const staged = row("b");
        await store.stage([staged]);
        const [pending, claimed, done] = await delivered([row("b"), row("c"), row("b")]);
        await store.markConsumed([claimed.deliverId], newId("inv"));
        const finisher = newId("inv");
        await store.markConsumed([done.deliverId], finisher);
        await store.promoteConsumed(finisher);

        expect(ids(await store.listByStatus(instanceId, ["STAGED"]))).toEqual([staged.deliverId]);
        expect(ids(await store.listByStatus(instanceId, ["PENDING"]))).toEqual([pending.deliverId]);
        expect(ids(await store.listByStatus(instanceId, ["CONSUMED_PENDING"]))).toEqual([claimed.deliverId]);
        expect(ids(await store.listByStatus(instanceId, ["CONSUMED_COMPLETED"]))).toEqual([done.deliverId]);
        expect(ids(await store.listByStatus(instanceId, ["STAGED", "CONSUMED_PENDING"]))).toEqual([staged.deliverId, claimed.deliverId]);
        expect(ids(await store.listByStatus(instanceId, ["PENDING", "CONSUMED_COMPLETED"]))).toEqual([pending.deliverId, done.deliverId]);
        expect(await store.listByStatus(instanceId, [])).toEqual([]);
      });

      it("listByInstance lists every row of every status with current state", async () => {
        const staged = row("b");
        await store.stage([staged]);
        const [claimed] = await delivered([row("c")]);
        const inv = newId("inv");
        await store.markConsumed([claimed.deliverId], inv);
        expect((await store.listByInstance(instanceId)).map((r) => [r.deliverId, r.status, r.consumedByInvocationId])).toEqual([
          [staged.deliverId, "STAGED", null],
          [claimed.deliverId, "CONSUMED_PENDING", inv],
        ]);
      });

      it("returns snapshots: a row read earlier keeps its status", async () => {
        const [r] = await delivered([row("b")]);
        const [seen] = await consumable("b");
        await store.markConsumed([r.deliverId], newId("inv"));
        expect(seen.status).toBe("PENDING");
        expect(seen.consumedByInvocationId).toBeNull();
      });
    });
  });
}
