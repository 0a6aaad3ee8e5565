import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GRAPH_ERROR_CODES, InstanceNotFoundError, isInstanceStateError } from "../../errors";
import type { CreateInstanceArgs, GraphInstanceStore } from "../instance-store";
import { canTransition, INSTANCE_STATUSES, type InstanceStatus } from "../records";
import { caught, type ConformanceOptions, type MakeSubject, newId, payload } from "./harness";

/**
 * The GraphInstanceStore contract: one row per run version, `load` answers the latest, older versions
 * are a frozen audit trail, and every status change follows the machine in `records.ts`.
 */
export function describeInstanceStoreConformance(
  name: string,
  make: MakeSubject<GraphInstanceStore>,
  options: ConformanceOptions<GraphInstanceStore> = {},
): void {
  describe(`GraphInstanceStore conformance: ${name}`, () => {
    let store: GraphInstanceStore;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await options.cleanup?.(store);
    });

    const create = async (overrides: Partial<CreateInstanceArgs> = {}) => {
      const instanceId = overrides.instanceId ?? newId("gi");
      return store.create({
        instanceId,
        graphName: "g",
        nodeIdMap: { a: "node_a", b: "node_b" },
        input: payload("hello"),
        ...overrides,
      });
    };

    /** A fresh instance whose latest version is in `status` (every status is one step from running). */
    const instanceIn = async (status: InstanceStatus) => {
      const rec = await create();
      if (status !== "running") await store.transition(rec.instanceId, status);
      return rec.instanceId;
    };

    describe("create", () => {
      it("creates version 1, running, with the given fields", async () => {
        const rec = await create({ graphName: "support", specId: "spec_1", attrs: { owner: "ops" } });
        expect(rec).toMatchObject({
          version: 1,
          graphName: "support",
          specId: "spec_1",
          status: "running",
          nodeIdMap: { a: "node_a", b: "node_b" },
          attrs: { owner: "ops" },
        });
        expect(await store.load(rec.instanceId)).toEqual(rec);
      });

      it("defaults specId to null and attrs to empty", async () => {
        const rec = await store.create({ graphName: "g", nodeIdMap: {}, input: payload(1) });
        expect(rec.specId).toBeNull();
        expect(rec.attrs).toEqual({});
      });

      it("generates a distinct instance id when none is given", async () => {
        const a = await store.create({ graphName: "g", nodeIdMap: {}, input: payload(1) });
        const b = await store.create({ graphName: "g", nodeIdMap: {}, input: payload(2) });
        expect(a.instanceId).toBeTruthy();
        expect(a.instanceId).not.toBe(b.instanceId);
      });

      it("uses the given instance id and refuses to create it twice", async () => {
        const id = newId("gi");
        expect((await create({ instanceId: id })).instanceId).toBe(id);
        expect(await caught(() => create({ instanceId: id }))).toBeInstanceOf(Error);
        expect(await store.versions(id)).toHaveLength(1);
      });

      it("freezes the node id map, isolated from the caller's object", async () => {
        const map: Record<string, string> = { a: "node_a" };
        const rec = await create({ nodeIdMap: map });
        map.a = "changed";
        map.b = "added";
        expect(Object.isFrozen(rec.nodeIdMap)).toBe(true);
        expect((await store.load(rec.instanceId))!.nodeIdMap).toEqual({ a: "node_a" });
      });

      it("records the input of version 1 with no output yet", async () => {
        const rec = await create({ input: payload({ q: "hi" }) });
        expect(await store.ioRecords(rec.instanceId)).toEqual([
          { instanceId: rec.instanceId, version: 1, input: payload({ q: "hi" }), output: null },
        ]);
      });
    });

    describe("beginInvocation (version chain)", () => {
      it("creates version N+1 on the same id from a completed instance; load returns it", async () => {
        const id = await instanceIn("completed");
        const v2 = await store.beginInvocation(id, payload("again"));
        expect(v2).toMatchObject({ instanceId: id, version: 2, status: "running" });
        expect(await store.load(id)).toEqual(v2);
        expect((await store.loadVersion(id, 1))!.status).toBe("completed");
      });

      it("re-invokes a failed instance", async () => {
        const id = await instanceIn("failed");
        expect(await store.beginInvocation(id, payload("retry"))).toMatchObject({ version: 2, status: "running" });
        expect((await store.loadVersion(id, 1))!.status).toBe("failed");
      });

      it("marks a latest version that is still running as crashed first", async () => {
        const id = await instanceIn("running");
        const v2 = await store.beginInvocation(id, payload("takeover"));
        expect(v2.status).toBe("running");
        expect((await store.loadVersion(id, 1))!.status).toBe("crashed");
      });

      it("carries graph name, spec id and the frozen node id map to the new version", async () => {
        const rec = await create({ graphName: "support", specId: "spec_9", nodeIdMap: { x: "node_x" } });
        await store.transition(rec.instanceId, "completed");
        const v2 = await store.beginInvocation(rec.instanceId, payload(2));
        expect(v2).toMatchObject({ graphName: "support", specId: "spec_9", nodeIdMap: { x: "node_x" } });
      });

      it("lists every version oldest first; older versions stay as they were", async () => {
        const id = await instanceIn("completed");
        await store.beginInvocation(id, payload(2));
        await store.transition(id, "failed");
        await store.beginInvocation(id, payload(3));
        const versions = await store.versions(id);
        expect(versions.map((v) => [v.version, v.status])).toEqual([
          [1, "completed"],
          [2, "failed"],
          [3, "running"],
        ]);
        expect(await store.loadVersion(id, 2)).toEqual(versions[1]);
        expect(await store.loadVersion(id, 4)).toBeNull();
      });

      it("records one IO record per version; recordOutput fills only its version", async () => {
        const id = await instanceIn("completed");
        await store.beginInvocation(id, payload("second"));
        await store.recordOutput(id, 2, [payload("out2a"), payload("out2b")]);
        await store.recordOutput(id, 1, [payload("out1")]);
        expect(await store.ioRecords(id)).toEqual([
          { instanceId: id, version: 1, input: payload("hello"), output: [payload("out1")] },
          { instanceId: id, version: 2, input: payload("second"), output: [payload("out2a"), payload("out2b")] },
        ]);
      });

      it("returns IO records as snapshots, not live references", async () => {
        const id = await instanceIn("running");
        const before = await store.ioRecords(id);
        await store.recordOutput(id, 1, [payload("done")]);
        expect(before[0].output).toBeNull();
        expect((await store.ioRecords(id))[0].output).toEqual([payload("done")]);
      });

      it("does not change a record returned earlier", async () => {
        const id = await instanceIn("running");
        const v1 = await store.load(id);
        await store.transition(id, "completed");
        await store.beginInvocation(id, payload(2));
        expect(v1).toMatchObject({ version: 1, status: "running" });
      });
    });

    describe("status machine", () => {
      const pairs = INSTANCE_STATUSES.flatMap((from) => INSTANCE_STATUSES.map((to) => [from, to] as const));
      const legal = pairs.filter(([from, to]) => canTransition(from, to));
      const illegal = pairs.filter(([from, to]) => !canTransition(from, to));

      it.each(legal)("allows %s → %s", async (from, to) => {
        const id = await instanceIn(from);
        const rec = await store.transition(id, to);
        expect(rec).toMatchObject({ instanceId: id, version: 1, status: to });
        expect((await store.load(id))!.status).toBe(to);
      });

      it.each(illegal)("refuses %s → %s with InstanceStateError, leaving the status", async (from, to) => {
        const id = await instanceIn(from);
        const error = await caught(() => store.transition(id, to));
        expect(isInstanceStateError(error)).toBe(true);
        expect(error).toMatchObject({ code: GRAPH_ERROR_CODES.INSTANCE_STATE, instanceId: id, from, to });
        expect((await store.load(id))!.status).toBe(from);
      });

      it.each(["stopped", "completed", "failed"] as const)("treats %s as terminal", async (terminal) => {
        const id = await instanceIn(terminal);
        for (const to of INSTANCE_STATUSES) expect(isInstanceStateError(await caught(() => store.transition(id, to)))).toBe(true);
      });

      it("resumes (→ running guarded by from: [paused]) a paused instance", async () => {
        const id = await instanceIn("paused");
        expect((await store.transition(id, "running", ["paused"])).status).toBe("running");
      });

      it.each(["crashed", "stopped", "running", "completed"] as const)(
        "refuses resume from %s, even where the machine alone would allow → running",
        async (from) => {
          const id = await instanceIn(from);
          expect(isInstanceStateError(await caught(() => store.transition(id, "running", ["paused"])))).toBe(true);
          expect((await store.load(id))!.status).toBe(from);
        },
      );

      it("refuses a legal transition whose from guard does not match", async () => {
        const id = await instanceIn("running");
        expect(isInstanceStateError(await caught(() => store.transition(id, "paused", ["crashed"])))).toBe(true);
        expect((await store.load(id))!.status).toBe("running");
        expect((await store.transition(id, "paused", ["crashed", "running"])).status).toBe("paused");
      });

      it("changes only the latest version", async () => {
        const id = await instanceIn("completed");
        await store.beginInvocation(id, payload(2));
        await store.transition(id, "paused");
        expect((await store.versions(id)).map((v) => v.status)).toEqual(["completed", "paused"]);
      });
    });

    describe("attrs and state", () => {
      it("merges attrs into the latest version, keeping the status", async () => {
        const rec = await create({ attrs: { a: 1, b: 2 } });
        await store.transition(rec.instanceId, "paused");
        await store.updateAttrs(rec.instanceId, { b: 3, c: { pid: 42 } });
        expect(await store.load(rec.instanceId)).toMatchObject({ status: "paused", attrs: { a: 1, b: 3, c: { pid: 42 } } });
      });

      it("moves updatedAt with attrs unless told they are not the run's activity (touch: false)", async () => {
        const rec = await create({ attrs: { a: 1 } });
        await new Promise((r) => setTimeout(r, 5));
        await store.updateAttrs(rec.instanceId, { b: 2 }, { touch: false });
        expect(await store.load(rec.instanceId)).toMatchObject({ attrs: { a: 1, b: 2 }, updatedAt: rec.updatedAt });
        await store.updateAttrs(rec.instanceId, { c: 3 });
        expect((await store.load(rec.instanceId))!.updatedAt).toBeGreaterThan(rec.updatedAt);
      });

      it("leaves attrs of older versions untouched", async () => {
        const rec = await create({ attrs: { a: 1 } });
        await store.transition(rec.instanceId, "completed");
        await store.beginInvocation(rec.instanceId, payload(2));
        await store.updateAttrs(rec.instanceId, { a: 2 });
        expect((await store.loadVersion(rec.instanceId, 1))!.attrs).toEqual({ a: 1 });
        expect((await store.load(rec.instanceId))!.attrs).toMatchObject({ a: 2 });
      });

      it("loads null state before any save", async () => {
        const rec = await create();
        expect(await store.loadState(rec.instanceId)).toBeNull();
      });

      it("round-trips state as a snapshot, not a live reference", async () => {
        const rec = await create();
        const state = { count: 1, items: ["a"], nested: { ok: true } };
        await store.saveState(rec.instanceId, state);
        state.count = 99;
        state.items.push("mutated");
        const loaded = (await store.loadState(rec.instanceId)) as typeof state;
        expect(loaded).toEqual({ count: 1, items: ["a"], nested: { ok: true } });
        loaded.items.push("mutated again");
        expect(await store.loadState(rec.instanceId)).toEqual({ count: 1, items: ["a"], nested: { ok: true } });
      });

      it("replaces state on every save", async () => {
        const rec = await create();
        await store.saveState(rec.instanceId, { count: 1, extra: true });
        await store.saveState(rec.instanceId, { count: 2 });
        expect(await store.loadState(rec.instanceId)).toEqual({ count: 2 });
      });
    });

    describe("list", () => {
      it("returns the latest version of each instance, newest first", async () => {
        const a = await create();
        const b = await create();
        const c = await create();
        await store.transition(a.instanceId, "completed");
        await store.beginInvocation(a.instanceId, payload(2));
        const listed = await store.list();
        expect(listed.map((r) => r.instanceId).sort()).toEqual([a, b, c].map((r) => r.instanceId).sort());
        expect(listed.find((r) => r.instanceId === a.instanceId)).toMatchObject({ version: 2, status: "running" });
      });

      it("orders instances created one after another newest first", async () => {
        const ids = [];
        for (let i = 0; i < 4; i++) ids.push((await store.create({ graphName: "g", nodeIdMap: {}, input: payload(i) })).instanceId);
        expect((await store.list()).map((r) => r.instanceId)).toEqual(ids.reverse());
      });

      it("filters by the latest version's status", async () => {
        const done = await instanceIn("completed");
        const running = await instanceIn("running");
        const reinvoked = await instanceIn("completed");
        await store.beginInvocation(reinvoked, payload(2));
        expect((await store.list({ status: "completed" })).map((r) => r.instanceId)).toEqual([done]);
        expect((await store.list({ status: "running" })).map((r) => r.instanceId).sort()).toEqual([running, reinvoked].sort());
        expect(await store.list({ status: "failed" })).toEqual([]);
      });

      it("honours the limit, keeping the newest", async () => {
        const ids = [];
        for (let i = 0; i < 5; i++) ids.push((await store.create({ graphName: "g", nodeIdMap: {}, input: payload(i) })).instanceId);
        expect((await store.list({ limit: 2 })).map((r) => r.instanceId)).toEqual([ids[4], ids[3]]);
      });
    });

    describe("unknown instances", () => {
      it("read as null or empty", async () => {
        const id = newId("missing");
        expect(await store.load(id)).toBeNull();
        expect(await store.loadVersion(id, 1)).toBeNull();
        expect(await store.versions(id)).toEqual([]);
        expect(await store.ioRecords(id)).toEqual([]);
        expect(await store.loadState(id)).toBeNull();
      });

      it.each([
        ["beginInvocation", (s: GraphInstanceStore, id: string) => s.beginInvocation(id, payload(1))],
        ["transition", (s: GraphInstanceStore, id: string) => s.transition(id, "paused")],
        ["updateAttrs", (s: GraphInstanceStore, id: string) => s.updateAttrs(id, { a: 1 })],
        ["saveState", (s: GraphInstanceStore, id: string) => s.saveState(id, { a: 1 })],
        ["recordOutput", (s: GraphInstanceStore, id: string) => s.recordOutput(id, 1, [])],
      ] as const)("raise InstanceNotFoundError from %s", async (_name, call) => {
        const id = newId("missing");
        const error = await caught(() => call(store, id));
        expect(error).toBeInstanceOf(InstanceNotFoundError);
        expect(error).toMatchObject({ code: GRAPH_ERROR_CODES.INSTANCE_NOT_FOUND, instanceId: id });
      });
    });
  });
}
