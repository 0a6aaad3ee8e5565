import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GRAPH_ERROR_CODES, isInvocationStateError } from "../../errors";
import type { NodeStateStore } from "../node-state-store";
import type { InvocationStatus, NodeInvocation } from "../records";
import { caught, type ConformanceOptions, type MakeSubject, newId, nodeIdOf } from "./harness";

type Finish = (s: NodeStateStore, id: string) => unknown;

/** Every way an invocation leaves RUNNING, by the status it ends in. */
const FINISHERS: Record<Exclude<InvocationStatus, "RUNNING">, Finish> = {
  COMPLETED: (s, id) => s.complete(id),
  CANCELLED: (s, id) => s.cancel(id, "interrupted"),
  FAILED: (s, id) => s.fail(id, "boom"),
  CRASHED: (s, id) => s.markCrashed(id),
};
const ENDED = Object.keys(FINISHERS) as (keyof typeof FINISHERS)[];

/**
 * The NodeStateStore contract: per (instance, node) version chains where version = max + 1 and
 * parentVersion points at the latest COMPLETED version, and compare-and-swap transitions out of RUNNING.
 */
export function describeNodeStateStoreConformance(
  name: string,
  make: MakeSubject<NodeStateStore>,
  options: ConformanceOptions<NodeStateStore> = {},
): void {
  describe(`NodeStateStore conformance: ${name}`, () => {
    let store: NodeStateStore;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await options.cleanup?.(store);
    });

    const newInstance = async () => {
      const id = newId("gi");
      await options.registerInstance?.(store, id);
      return id;
    };
    const begin = (instanceId: string, node = "a") =>
      Promise.resolve(store.begin({ instanceId, nodeId: nodeIdOf(node), nodeName: node }));
    /** Begins an invocation of `node` and ends it in `status`. */
    const ran = async (instanceId: string, status: InvocationStatus, node = "a") => {
      const inv = await begin(instanceId, node);
      if (status !== "RUNNING") await FINISHERS[status](store, inv.invocationId);
      return inv;
    };

    describe("begin", () => {
      it("inserts a RUNNING version 1 with no parent", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        expect(inv).toMatchObject({
          instanceId,
          nodeId: nodeIdOf("a"),
          nodeName: "a",
          version: 1,
          parentVersion: null,
          status: "RUNNING",
          endedAt: null,
          error: null,
        });
        expect(inv.invocationId).toBeTruthy();
        expect(await store.get(inv.invocationId)).toEqual(inv);
      });

      it("numbers versions max + 1 whatever the earlier invocations ended in", async () => {
        const instanceId = await newInstance();
        const versions = [];
        for (const status of ["FAILED", "CANCELLED", "CRASHED", "COMPLETED", "RUNNING"] as const) {
          versions.push((await ran(instanceId, status)).version);
        }
        expect(versions).toEqual([1, 2, 3, 4, 5]);
      });

      it("gives each invocation a distinct id", async () => {
        const instanceId = await newInstance();
        const ids = new Set<string>();
        for (let i = 0; i < 5; i++) ids.add((await ran(instanceId, "COMPLETED")).invocationId);
        expect(ids.size).toBe(5);
      });

      it("keeps one chain per (instance, node)", async () => {
        const [i1, i2] = [await newInstance(), await newInstance()];
        await ran(i1, "COMPLETED", "a");
        await ran(i1, "COMPLETED", "a");
        expect((await begin(i1, "b")).version).toBe(1);
        expect((await begin(i2, "a")).version).toBe(1);
        expect((await begin(i1, "a")).version).toBe(3);
      });
    });

    describe("parentVersion", () => {
      it("is null while no version completed, skipping failed, cancelled and crashed ones", async () => {
        const instanceId = await newInstance();
        await ran(instanceId, "FAILED");
        await ran(instanceId, "CANCELLED");
        await ran(instanceId, "CRASHED");
        expect((await begin(instanceId)).parentVersion).toBeNull();
      });

      it("points at the latest COMPLETED version", async () => {
        const instanceId = await newInstance();
        await ran(instanceId, "COMPLETED"); // v1
        expect((await ran(instanceId, "FAILED")).parentVersion).toBe(1); // v2
        expect((await ran(instanceId, "COMPLETED")).parentVersion).toBe(1); // v3
        await ran(instanceId, "CANCELLED"); // v4
        await ran(instanceId, "CRASHED"); // v5
        expect((await begin(instanceId)).parentVersion).toBe(3); // v6
      });

      it("looks only at the same node's chain", async () => {
        const instanceId = await newInstance();
        await ran(instanceId, "COMPLETED", "b");
        expect((await begin(instanceId, "a")).parentVersion).toBeNull();
      });
    });

    describe("transitions out of RUNNING", () => {
      it("complete ends the invocation COMPLETED", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        const done = await store.complete(inv.invocationId);
        expect(done).toMatchObject({ invocationId: inv.invocationId, version: 1, status: "COMPLETED", error: null });
        expect(done.endedAt).not.toBeNull();
        expect(await store.get(inv.invocationId)).toEqual(done);
      });

      it("cancel ends it CANCELLED", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        expect(await store.cancel(inv.invocationId, "interrupted")).toMatchObject({ status: "CANCELLED" });
        expect((await store.get(inv.invocationId))!.endedAt).not.toBeNull();
      });

      it("fail ends it FAILED with the error", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        expect(await store.fail(inv.invocationId, "boom")).toMatchObject({ status: "FAILED", error: "boom" });
        expect(await store.get(inv.invocationId)).toMatchObject({ status: "FAILED", error: "boom" });
      });

      it("markCrashed ends it CRASHED", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        expect(await store.markCrashed(inv.invocationId)).toMatchObject({ status: "CRASHED" });
      });

      const matrix = ENDED.flatMap((status) => ENDED.map((op) => [status, op] as const));
      it.each(matrix)("refuses to move a %s invocation to %s (InvocationStateError)", async (status, op) => {
        const instanceId = await newInstance();
        const inv = await ran(instanceId, status);
        const before = await store.get(inv.invocationId);
        const error = await caught(() => FINISHERS[op](store, inv.invocationId));
        expect(isInvocationStateError(error)).toBe(true);
        expect(error).toMatchObject({
          code: GRAPH_ERROR_CODES.INVOCATION_STATE,
          invocationId: inv.invocationId,
          expected: "RUNNING",
          actual: status,
        });
        expect(await store.get(inv.invocationId)).toEqual(before);
      });

      it.each(ENDED)("refuses to move an unknown invocation to %s", async (op) => {
        const error = await caught(() => FINISHERS[op](store, newId("missing")));
        expect(isInvocationStateError(error)).toBe(true);
      });

      it("lets exactly one of two racing transitions win", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        const results = await Promise.allSettled([
          Promise.resolve().then(() => store.complete(inv.invocationId)),
          Promise.resolve().then(() => store.cancel(inv.invocationId, "drain")),
        ]);
        const won = results.filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<NodeInvocation>[];
        const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(isInvocationStateError(lost[0].reason)).toBe(true);
        expect((await store.get(inv.invocationId))!.status).toBe(won[0].value.status);
      });

      it("does not change a record returned earlier", async () => {
        const instanceId = await newInstance();
        const inv = await begin(instanceId);
        await store.complete(inv.invocationId);
        expect(inv.status).toBe("RUNNING");
      });
    });

    describe("queries", () => {
      it("get answers null for an unknown invocation", async () => {
        expect(await store.get(newId("missing"))).toBeNull();
      });

      it("listRunning returns only the instance's RUNNING invocations", async () => {
        const [i1, i2] = [await newInstance(), await newInstance()];
        const a = await begin(i1, "a");
        const b = await begin(i1, "b");
        await ran(i1, "COMPLETED", "c");
        await begin(i2, "a");
        expect((await store.listRunning(i1)).map((r) => r.invocationId).sort()).toEqual([a.invocationId, b.invocationId].sort());
        await store.complete(a.invocationId);
        expect((await store.listRunning(i1)).map((r) => r.invocationId)).toEqual([b.invocationId]);
        expect(await store.listRunning(newId("missing"))).toEqual([]);
      });

      it("history lists one node's chain by version, with current statuses", async () => {
        const instanceId = await newInstance();
        await ran(instanceId, "FAILED", "a");
        await ran(instanceId, "COMPLETED", "b");
        await ran(instanceId, "COMPLETED", "a");
        await begin(instanceId, "a");
        const history = await store.history(instanceId, nodeIdOf("a"));
        expect(history.map((r) => [r.version, r.status, r.parentVersion])).toEqual([
          [1, "FAILED", null],
          [2, "COMPLETED", null],
          [3, "RUNNING", 2],
        ]);
        expect(await store.history(instanceId, nodeIdOf("zzz"))).toEqual([]);
      });

      it("listByInstance lists every invocation of the instance in begin order", async () => {
        const [i1, i2] = [await newInstance(), await newInstance()];
        const a1 = await ran(i1, "COMPLETED", "a");
        const b1 = await ran(i1, "FAILED", "b");
        await ran(i2, "COMPLETED", "a");
        const a2 = await begin(i1, "a");
        const listed = await store.listByInstance(i1);
        expect(listed.map((r) => r.invocationId)).toEqual([a1, b1, a2].map((r) => r.invocationId));
        expect(listed.map((r) => r.status)).toEqual(["COMPLETED", "FAILED", "RUNNING"]);
      });
    });
  });
}
