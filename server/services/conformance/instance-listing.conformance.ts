import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConformanceOptions, MakeSubject } from "@/server/graph/persistence/conformance/harness";
import type { GraphInstanceStore } from "@/server/graph/persistence/instance-store";
import type { InstanceStatus } from "@/server/graph/persistence/records";
import type { InstanceArchive } from "../instance-archive";
import type { InstanceListing, InstanceListItem, InstanceListQuery } from "../instance-listing";
import { RESUME_DUE_ATTR } from "../resume-due";
import { WAITING_FOR_ATTR } from "../waiting-for";

export interface InstanceListingSubject {
  instances: GraphInstanceStore;
  listing: InstanceListing;
  archive: InstanceArchive;
}

export interface InstanceListingOptions extends ConformanceOptions<InstanceListingSubject> {
  /** The store keeps every version's state (SQLite, PostgreSQL), not only the latest's (in memory). */
  keepsEveryVersionState?: boolean;
}

const T = 1_700_000_000_000;
const COUNTERS = Array.from({ length: 7 }, (_, i) => `count-${i}`);

/**
 * The Instances list's contract, the same on every store: the latest versions, latest activity first
 * (ties by instance id, bytewise, descending), filtered by status, waiting for a person, graph, text
 * over id and any version's input, start time and archive mark; cursor pages that list every row once;
 * totals over the filters before the status/waiting one.
 *
 * The rows (every time set by the clock, so every store holds the same ones):
 *   count-0 … count-6  counter-loop, completed at T+i s+500 ms; count-0 re-invoked at T+10 s (running, v2)
 *   gate               approval-gate, paused waiting for a person (updated T+7.6 s), input "release 7"
 *   held               approval-gate, paused by a drain (updated T+8.5 s), input "100% done_ok"
 *   run-B, run-a       ties, running, both created and updated at T+9 s
 */
export function describeInstanceListingConformance(name: string, make: MakeSubject<InstanceListingSubject>, options: InstanceListingOptions = {}): void {
  describe(`InstanceListing conformance: ${name}`, () => {
    let subject: InstanceListingSubject;
    let clock = T;
    beforeEach(async () => {
      subject = await make();
      vi.spyOn(Date, "now").mockImplementation(() => clock);
      await seed(subject.instances);
      vi.restoreAllMocks();
      // SQLite's store holds a run's state saves until its group commit, at the latest the next macrotask.
      await new Promise((resolve) => setImmediate(resolve));
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      await options.cleanup?.(subject);
    });

    const at = (t: number) => (clock = T + t);

    async function seed(store: GraphInstanceStore): Promise<void> {
      const create = (instanceId: string, graphName: string, content: unknown) => store.create({ instanceId, graphName, nodeIdMap: { a: "node_a" }, input: { content } });
      for (const [i, id] of COUNTERS.entries()) {
        at(i * 1000);
        await create(id, "counter-loop", `count ${i}`);
        at(i * 1000 + 500);
        if (id === "count-0") await store.saveState(id, { count: 1 });
        await store.transition(id, "completed");
      }
      at(7000);
      await create("gate", "approval-gate", "release 7");
      at(7500);
      await store.transition("gate", "paused");
      at(7600);
      await store.updateAttrs("gate", { [WAITING_FOR_ATTR]: { prompt: "approve?" } });
      at(8000);
      await create("held", "approval-gate", "100% done_ok");
      at(8500);
      await store.transition("held", "paused");
      at(9000);
      await create("run-B", "ties", null);
      await create("run-a", "ties", null);
      at(10_000);
      await store.beginInvocation("count-0", { content: "second pass" });
      await store.saveState("count-0", { count: 2 });
    }

    const ORDER = ["count-0", "run-a", "run-B", "held", "gate", "count-6", "count-5", "count-4", "count-3", "count-2", "count-1"];
    const page = async (query: InstanceListQuery) => subject.listing.page(query);
    const ids = async (query: InstanceListQuery) => (await page(query)).items.map((r) => r.instanceId);

    it("lists the latest versions, latest activity first, ties by id bytewise, every row once across cursor pages", async () => {
      const first = await page({ limit: 3 });
      expect(first.total).toBe(11);
      const seen: InstanceListItem[] = [...first.items];
      let cursor = first.nextCursor;
      while (cursor) {
        const next = await page({ limit: 3, cursor });
        expect(next.total).toBe(11);
        seen.push(...next.items);
        cursor = next.nextCursor;
      }
      expect(seen.map((r) => r.instanceId)).toEqual(ORDER);
      expect(seen[0]).toEqual({
        instanceId: "count-0",
        version: 2,
        status: "running",
        graphName: "counter-loop",
        specId: null,
        createdAt: T + 10_000,
        updatedAt: T + 10_000,
        waiting: false,
        waitKind: null,
        queued: null,
        archived: false,
      });
      expect(seen.find((r) => r.instanceId === "gate")).toMatchObject({ status: "paused", waiting: true, waitKind: "input", updatedAt: T + 7600, createdAt: T + 7000 });
      expect((await page({ limit: 11 })).nextCursor).toBeNull();
      expect((await page({ limit: 10 })).nextCursor).not.toBeNull();
    });

    it("says what a waiting run waits for: an agent's approval, or a person's input", async () => {
      await subject.instances.updateAttrs("gate", { [WAITING_FOR_ATTR]: { kind: "agent_approval", prompt: "run the tool?" } });
      expect((await page({ waiting: true })).items).toMatchObject([{ instanceId: "gate", waiting: true, waitKind: "approval" }]);
      expect((await page({ status: "paused", waiting: false })).items).toMatchObject([{ instanceId: "held", waiting: false, waitKind: null }]);
    });

    it("says what a cluster has queued for a run (its resume_due)", async () => {
      await subject.instances.updateAttrs("gate", { [RESUME_DUE_ATTR]: { kind: "answer", at: T + 9500 } });
      await subject.instances.updateAttrs("count-3", { [RESUME_DUE_ATTR]: { kind: "deliver", at: T + 9600 } });
      const items = (await page({ limit: 20 })).items;
      const queued = Object.fromEntries(items.map((r) => [r.instanceId, r.queued]));
      expect(queued).toMatchObject({ gate: { kind: "answer", since: T + 9500 }, "count-3": { kind: "deliver", since: T + 9600 }, held: null, "count-0": null });
      // Its start clears it (InstanceRun writes null).
      await subject.instances.updateAttrs("gate", { [RESUME_DUE_ATTR]: null });
      expect((await page({ waiting: true })).items).toMatchObject([{ instanceId: "gate", queued: null }]);
    });

    it("does not count a run whose answer is queued for a worker as waiting for a person: it waits for nobody until the run starts", async () => {
      await subject.instances.updateAttrs("gate", { [RESUME_DUE_ATTR]: { kind: "decision", at: T + 9500 } });
      const all = await page({ limit: 20 });
      expect(all.items.find((r) => r.instanceId === "gate")).toMatchObject({ waiting: false, waitKind: null, queued: { kind: "decision" } });
      expect(all.counts).toMatchObject({ waiting: 0, byStatus: { paused: 2 } });
      expect(await page({ waiting: true })).toMatchObject({ items: [], total: 0 });
      // The Paused tab (paused, not waiting) lists it instead, so the tabs still add up.
      expect((await ids({ status: "paused", waiting: false })).sort()).toEqual(["gate", "held"]);
      expect((await page({ status: "paused", waiting: false })).total).toBe(2);
      await subject.archive.setArchived("gate", true, T + 20_000);
      expect((await page({ archived: "only" })).counts).toMatchObject({ all: 1, waiting: 0 });
      expect((await page({})).counts).toMatchObject({ waiting: 0, byStatus: { paused: 1 } });
      // The run's start clears the mark: were it to pause again on a question, it waits for a person again.
      await subject.instances.updateAttrs("gate", { [RESUME_DUE_ATTR]: null });
      expect(await ids({ archived: "only", waiting: true })).toEqual(["gate"]);
    });

    it("counts by status and waiting over the filters before the status filter", async () => {
      const { counts } = await page({ status: "completed" });
      const byStatus: Partial<Record<InstanceStatus, number>> = { completed: 6, running: 3, paused: 2 };
      expect(counts.all).toBe(11);
      for (const [status, n] of Object.entries(counts.byStatus)) expect(n).toBe(byStatus[status as InstanceStatus] ?? 0);
      expect(counts.waiting).toBe(1);
      expect(counts.archived).toBe(0);
      expect((await page({ graph: "approval-gate" })).counts).toMatchObject({ all: 2, waiting: 1, byStatus: { paused: 2 } });
    });

    it("filters by status, waiting and graph", async () => {
      expect(await ids({ waiting: true })).toEqual(["gate"]);
      expect(await page({ waiting: true })).toMatchObject({ total: 1 });
      expect(await ids({ status: "paused", waiting: false })).toEqual(["held"]);
      expect((await page({ waiting: false })).total).toBe(10);
      expect((await page({ status: "completed", waiting: true })).total).toBe(0);
      expect(await ids({ status: "running" })).toEqual(["count-0", "run-a", "run-B"]);
      expect(await ids({ graph: "approval-gate" })).toEqual(["held", "gate"]);
      expect((await page({ graph: "counter-loop", status: "completed" })).total).toBe(6);
      expect((await page({ graph: "nope" })).total).toBe(0);
    });

    it("searches the id and every version's input, case-insensitively, LIKE's wildcards taken literally", async () => {
      expect(await ids({ q: "release 7" })).toEqual(["gate"]);
      expect(await ids({ q: "COUNT 3" })).toEqual(["count-3"]);
      expect(await ids({ q: "count 0" })).toEqual(["count-0"]); // version 1's input
      expect(await ids({ q: "second pass" })).toEqual(["count-0"]);
      expect(await ids({ q: "run-" })).toEqual(["run-a", "run-B"]);
      expect(await ids({ q: "GATE" })).toEqual(["gate"]);
      expect(await ids({ q: "  7 " })).toEqual(["gate"]); // short: the id or the whole input
      expect(await ids({ q: "ga" })).toEqual(["gate"]);
      expect(await ids({ q: "100%" })).toEqual(["held"]);
      expect(await ids({ q: "e_o" })).toEqual(["held"]);
      expect((await page({ q: "100%_" })).total).toBe(0);
      expect((await page({ q: "e_x" })).total).toBe(0);
      expect((await page({ q: "nothing like it" })).total).toBe(0);
      expect((await page({ q: "count", status: "completed" })).counts).toMatchObject({ all: 7, byStatus: { completed: 6, running: 1 } });
    });

    it("filters by when the latest version started: from inclusive, to exclusive", async () => {
      expect(await ids({ from: T + 3000 })).toEqual(["count-0", "run-a", "run-B", "held", "gate", "count-6", "count-5", "count-4", "count-3"]);
      expect(await ids({ to: T + 3000 })).toEqual(["count-2", "count-1"]);
      expect(await ids({ from: T + 3000, to: T + 7000 })).toEqual(["count-6", "count-5", "count-4", "count-3"]);
      expect((await page({ from: T + 60_000 })).total).toBe(0);
      expect((await page({ to: T + 60_000 })).total).toBe(11);
    });

    it("hides archived instances unless asked, counts them, and brings them back", async () => {
      const { archive } = subject;
      await archive.setArchived("gate", true, T + 20_000);
      await archive.setArchived("count-6", true, T + 20_000);
      await archive.setArchived("count-6", true, T + 21_000); // archiving again changes nothing
      const shown = await page({});
      expect(shown.items.map((r) => r.instanceId)).toEqual(ORDER.filter((id) => id !== "gate" && id !== "count-6"));
      expect(shown.total).toBe(9);
      expect(shown.counts).toMatchObject({ all: 9, waiting: 0, archived: 2, byStatus: { completed: 5, paused: 1 } });
      const only = await page({ archived: "only" });
      expect(only.items.map((r) => [r.instanceId, r.archived])).toEqual([
        ["gate", true],
        ["count-6", true],
      ]);
      expect(only.counts).toMatchObject({ all: 2, waiting: 1, archived: 2 });
      expect(await ids({ archived: "only", waiting: true })).toEqual(["gate"]);
      expect(await ids({ archived: "only", q: "release" })).toEqual(["gate"]);
      expect(await ids({ archived: "only", limit: 1, cursor: (await page({ archived: "only", limit: 1 })).nextCursor! })).toEqual(["count-6"]);
      const all = await page({ archived: "include" });
      expect(all.total).toBe(11);
      expect(all.items.filter((r) => r.archived).map((r) => r.instanceId)).toEqual(["gate", "count-6"]);
      expect((await page({ graph: "counter-loop" })).counts.archived).toBe(1);
      expect(await archive.isArchived("gate")).toBe(true);
      expect(await archive.isArchived("held")).toBe(false);
      expect([...(await archive.archivedIds())].sort()).toEqual(["count-6", "gate"]);

      await archive.setArchived("gate", false, T + 30_000);
      await archive.setArchived("held", false, T + 30_000); // not archived: nothing to do
      expect((await page({})).total).toBe(10);
      expect(await ids({ archived: "only" })).toEqual(["count-6"]);
    });

    it("answers a version's state as last saved", async () => {
      expect(await subject.listing.versionState("count-0", 2)).toEqual({ count: 2 });
      expect(await subject.listing.versionState("count-1", 1)).toBeNull();
      expect(await subject.listing.versionState("count-0", 3)).toBeNull();
      expect(await subject.listing.versionState("nope", 1)).toBeNull();
      if (options.keepsEveryVersionState) expect(await subject.listing.versionState("count-0", 1)).toEqual({ count: 1 });
    });

    it("refuses a cursor it did not make", async () => {
      await expect(Promise.resolve().then(() => subject.listing.page({ cursor: "nonsense" }))).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });
}
