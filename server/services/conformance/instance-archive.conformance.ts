import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StateSnapshots } from "@/server/db/state-snapshots";
import { caught, deliverRow, newId, type ConformanceOptions, type MakeSubject } from "@/server/graph/persistence/conformance/harness";
import type { DeliverStore } from "@/server/graph/persistence/deliver-store";
import type { NodeStateStore } from "@/server/graph/persistence/node-state-store";
import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import type { EventLog } from "../event-log";
import type { InstanceArchive } from "../instance-archive";

export interface InstanceArchiveSubject {
  instances: GraphInstanceStore;
  archive: InstanceArchive;
  events: EventLog;
  /**
   * Durable stores: the snapshots, and how many rows an instance owns in each of its tables (what
   * deleting must empty). The in-memory stores have neither, and refuse to delete.
   */
  durable?: {
    nodes: NodeStateStore;
    delivers: DeliverStore;
    snapshots: StateSnapshots;
    /** Keeps a state snapshot as of an invocation, as the engine's completion does. */
    saveSnapshot(invocationId: string, json: string): void | Promise<void>;
    rowsOf(instanceId: string): Promise<Record<string, number>>;
    /** token_budget's totals (the app database's): an instance's total is a row it owns too. */
    tokens: TokenTotals;
  };
}

/** The InstanceArchive contract: archive marks, idempotent both ways; deleting removes every row an instance owns, and only its. */
export function describeInstanceArchiveConformance(name: string, make: MakeSubject<InstanceArchiveSubject>, options: ConformanceOptions<InstanceArchiveSubject> = {}): void {
  describe(`InstanceArchive conformance: ${name}`, () => {
    let subject: InstanceArchiveSubject;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await options.cleanup?.(subject);
    });

    const create = async (instanceId = newId("gi")) =>
      (await subject.instances.create({ instanceId, graphName: "g", nodeIdMap: { a: "node_a" }, input: { content: `input of ${instanceId}` } })).instanceId;

    it("marks and unmarks an instance as archived, either way more than once", async () => {
      const { archive } = subject;
      const a = await create();
      const b = await create();
      expect(await archive.isArchived(a)).toBe(false);
      expect([...(await archive.archivedIds())]).toEqual([]);
      await archive.setArchived(a, true, 1_000);
      await archive.setArchived(a, true, 2_000);
      expect(await archive.isArchived(a)).toBe(true);
      expect(await archive.isArchived(b)).toBe(false);
      expect([...(await archive.archivedIds())]).toEqual([a]);
      await archive.setArchived(a, false, 3_000);
      await archive.setArchived(a, false, 4_000);
      await archive.setArchived(b, false, 4_000);
      expect(await archive.isArchived(a)).toBe(false);
      expect([...(await archive.archivedIds())]).toEqual([]);
    });

    it("keeps a new version of an archived instance archived", async () => {
      const a = await create();
      await subject.archive.setArchived(a, true, 1_000);
      await subject.instances.transition(a, "completed");
      await subject.instances.beginInvocation(a, { content: "again" });
      expect(await subject.archive.isArchived(a)).toBe(true);
    });

    it("deletes every row an instance owns and no other's, or refuses where it cannot", async () => {
      const { archive, events, instances, durable } = subject;
      // Ids where one is a prefix of the other: an instance's snapshots are a range of the key.
      const gone = await create(newId("gi"));
      const kept = await create(`${gone}0`);
      for (const id of [gone, kept]) {
        await instances.transition(id, "completed");
        await instances.beginInvocation(id, { content: "v2" });
        await events.append({ instanceId: id, version: 1, event: { type: "instance_status", instanceId: id, version: 1, from: null, to: "running" } });
        await archive.setArchived(id, true, 1_000);
        if (durable) {
          const { invocationId } = await durable.nodes.begin({ instanceId: id, nodeId: "node_a", nodeName: "a" });
          await durable.delivers.appendPending(deliverRow({ instanceId: id, target: "a", sourceInvocationId: invocationId }));
          await durable.saveSnapshot(invocationId, `{"at":"${id}"}`);
          await durable.saveSnapshot(`${id}.123`, `{"at":"${id}"}`);
          await durable.snapshots.saveSeed(id, `{"seed":"${id}"}`);
          await durable.tokens.add(id, 120);
        }
      }
      if (!durable) {
        expect(await caught(() => archive.delete(gone))).toBeInstanceOf(Error);
        return;
      }
      const before = await durable.rowsOf(kept);
      expect(Object.values(before).every((n) => n > 0)).toBe(true);
      await archive.delete(gone);
      expect(Object.values(await durable.rowsOf(gone)).every((n) => n === 0)).toBe(true);
      expect(await durable.rowsOf(kept)).toEqual(before);
      expect(await instances.load(gone)).toBeNull();
      expect(await events.list(gone)).toEqual([]);
      expect(await archive.isArchived(gone)).toBe(false);
      expect(await durable.snapshots.seedOf(gone)).toBeNull();
      expect(await durable.snapshots.get(`${gone}.123`)).toBeNull();
      expect(await durable.snapshots.get(`${kept}.123`)).toBe(`{"at":"${kept}"}`);
      expect((await instances.load(kept))?.version).toBe(2);
      expect(await durable.tokens.get(gone)).toBe(0);
      expect(await durable.tokens.get(kept)).toBe(120);
      await archive.delete(gone); // nothing left: nothing to do
    });
  });
}
