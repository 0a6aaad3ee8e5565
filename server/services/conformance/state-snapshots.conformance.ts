import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StateSnapshots } from "@/server/db/state-snapshots";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import { newId, nodeIdOf, payload, type ConformanceOptions, type MakeSubject } from "@/server/graph/persistence/conformance/harness";

export interface StateSnapshotsSubject {
  snapshots: StateSnapshots;
  /** Keeps a state snapshot as of an invocation, as the engine's completion does. */
  saveSnapshot(invocationId: string, json: string): void | Promise<void>;
  /** The backend's durable coordinator, writing to the database `snapshots` reads. */
  coordinator: GraphPersistenceCoordinator;
  /** Resolves once every completion the coordinator returned is committed (a held one written). */
  committed(): Promise<void>;
}

/** The StateSnapshots contract: the state as of an invocation or a fork's seed, read back as the JSON text written. */
export function describeStateSnapshotsConformance(name: string, make: MakeSubject<StateSnapshotsSubject>, options: ConformanceOptions<StateSnapshotsSubject> = {}): void {
  describe(`StateSnapshots conformance: ${name}`, () => {
    let subject: StateSnapshotsSubject;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await options.cleanup?.(subject);
    });

    it("answers null for an invocation that saved none, and an instance never seeded", async () => {
      expect(await subject.snapshots.get(newId("inv"))).toBeNull();
      expect(await subject.snapshots.seedOf(newId("gi"))).toBeNull();
    });

    it("reads a snapshot back as the very text written (key order, spacing, unicode)", async () => {
      const id = newId("gi");
      const json = `{"b": [1, 2.50, null],  "a": {"é": "\\u2028 \\"x\\""}}`;
      await subject.saveSnapshot(`${id}.1`, json);
      await subject.saveSnapshot(`${id}.2`, `{"n":2}`);
      expect(await subject.snapshots.get(`${id}.1`)).toBe(json);
      expect(await subject.snapshots.get(`${id}.2`)).toBe(`{"n":2}`);
      expect(await subject.snapshots.seedOf(id)).toBeNull();
    });

    it("a completion keeps the state as of its invocation when it changed it, none when it left it alone", async () => {
      const { coordinator } = subject;
      const instanceId = newId("gi");
      await coordinator.instances.create({ instanceId, graphName: "g", nodeIdMap: { a: nodeIdOf("a"), b: nodeIdOf("b"), c: nodeIdOf("c"), d: nodeIdOf("d") }, input: payload(null) });
      // Each node opens after the previous one completed, as in a chain (the backend may write a
      // completion together with the next begin).
      const step = async (node: string, state?: unknown) => {
        const { invocation } = await coordinator.openInvocation({ instanceId, nodeId: nodeIdOf(node), nodeName: node });
        await coordinator.completeInvocation(invocation, [], state);
        await coordinator.promoteConsumed(invocation);
        return invocation.invocationId;
      };
      const a = await step("a", { n: 1, é: "x" });
      const b = await step("b", { n: 1, é: "x" });
      const c = await step("c", { n: 2, é: "x" });
      const d = await step("d");
      await subject.committed();
      expect(await subject.snapshots.get(a)).toBe(`{"n":1,"é":"x"}`);
      expect(await subject.snapshots.get(b)).toBeNull();
      expect(await subject.snapshots.get(c)).toBe(`{"n":2,"é":"x"}`);
      expect(await subject.snapshots.get(d)).toBeNull();
      expect(await subject.snapshots.seedOf(instanceId)).toBeNull();
    });

    it("keeps a fork's seed apart from its invocations' snapshots, the last seed saved winning", async () => {
      const id = newId("gi");
      await subject.snapshots.saveSeed(id, `{"seed":1}`);
      await subject.snapshots.saveSeed(id, `{"seed":2}`);
      await subject.saveSnapshot(`${id}.1`, `{"n":1}`);
      expect(await subject.snapshots.seedOf(id)).toBe(`{"seed":2}`);
      expect(await subject.snapshots.get(`${id}.1`)).toBe(`{"n":1}`);
      expect(await subject.snapshots.seedOf(`${id}0`)).toBeNull();
    });
  });
}
