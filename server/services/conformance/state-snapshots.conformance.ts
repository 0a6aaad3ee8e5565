import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StateSnapshots } from "@/server/db/state-snapshots";
import { newId, type ConformanceOptions, type MakeSubject } from "@/server/graph/persistence/conformance/harness";

export interface StateSnapshotsSubject {
  snapshots: StateSnapshots;
  /** Keeps a state snapshot as of an invocation, as the engine's completion does. */
  saveSnapshot(invocationId: string, json: string): void | Promise<void>;
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
