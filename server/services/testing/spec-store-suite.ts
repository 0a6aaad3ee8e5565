import { expect, it } from "vitest";
import { newSnowflake } from "@/server/graph/ids";
import type { SpecHead, SpecListingFields, SpecRecord, SpecStore } from "../spec-store";

/** What the spec store tests need of a backend. */
export interface SpecStoreBackend {
  store(): SpecStore;
  /** A store on new connections to the same data: what another process would use. */
  reopened(): SpecStore;
}

let names = 0;
/** Names of their own per test: a backend may share one database across the tests of a file. */
const uniqueName = (base: string) => `${base}-${process.pid}-${++names}`;

const LISTING: SpecListingFields = { description: "two nodes", nodeCount: 2 };

function record(name: string, content: string, overrides: Partial<SpecRecord> = {}): SpecRecord {
  return {
    specId: newSnowflake(),
    name,
    version: "1",
    yaml: `name: ${name}\n# ${content}\n`,
    contentHash: `sha256:${content}`,
    createdAt: Date.now(),
    listing: LISTING,
    ...overrides,
  };
}

const headOf = ({ yaml: _, ...head }: SpecRecord): SpecHead => head;
const ids = (heads: readonly SpecHead[]) => heads.map((h) => h.specId);

/** The SpecStore contract, on one backend (memory, SQLite, PostgreSQL). */
export function specStoreTests(backend: SpecStoreBackend): void {
  it("reads back what it inserted, with and without the YAML, and answers null for what it does not hold", async () => {
    const store = backend.store();
    const name = uniqueName("round-trip");
    const saved = record(name, "a", { version: "", createdAt: 1_700_000_000_123 });
    const unlisted = record(uniqueName("unlisted"), "b", { listing: null, createdAt: 1_700_000_000_456 });
    await store.insert(saved);
    await store.insert(unlisted);
    const other = backend.reopened();
    expect(await other.get(saved.specId)).toEqual(saved);
    expect(await other.latest(name)).toEqual(saved);
    expect(await other.head(saved.specId)).toMatchObject(headOf(saved));
    expect(await other.latestHead(name)).toMatchObject(headOf(saved));
    expect(await other.get(unlisted.specId)).toEqual(unlisted);
    for (const missing of [other.get("1"), other.head("1"), other.latest(uniqueName("none")), other.latestHead(uniqueName("none"))]) {
      expect(await missing).toBeNull();
    }
    expect(await other.history(uniqueName("none"))).toEqual([]);
  });

  it("orders a name's revisions newest first, by time and then by id within a millisecond", async () => {
    const store = backend.store();
    const name = uniqueName("history");
    const first = record(name, "1", { createdAt: 1_000 });
    const second = record(name, "2", { createdAt: 2_000 });
    const sameMs = record(name, "3", { createdAt: 2_000 }); // a later Snowflake
    for (const r of [second, first, sameMs]) await store.insert(r);
    expect(ids(await store.history(name))).toEqual([sameMs.specId, second.specId, first.specId]);
    expect((await store.latest(name))?.specId).toBe(sameMs.specId);
    expect((await store.latestHead(name))?.specId).toBe(sameMs.specId);
  });

  it("lists the latest revision of every name, by name, with the name's revision count", async () => {
    const store = backend.store();
    const prefix = uniqueName("list");
    const [b, a, upper] = [`${prefix}-b`, `${prefix}-a`, `${prefix}-B`];
    const rows = [record(b, "b1", { createdAt: 1 }), record(a, "a1", { createdAt: 2 }), record(b, "b2", { createdAt: 3 }), record(upper, "B1", { createdAt: 4 })];
    for (const r of rows) await store.insert(r);
    const mine = (await backend.reopened().listLatest()).filter((h) => h.name.startsWith(prefix));
    // Code point order, as SQLite's and JavaScript's: "B" before "a".
    expect(mine.map((h) => [h.name, h.specId])).toEqual([
      [upper, rows[3].specId],
      [a, rows[1].specId],
      [b, rows[2].specId],
    ]);
    expect(mine[0]).toMatchObject({ listing: LISTING, version: "1", contentHash: "sha256:B1" });
    expect(mine.map((h) => h.revisions)).toEqual([1, 1, 2]);
  });

  it("saveIfChanged inserts new content, finds the latest revision's own, and inserts a return to earlier content", async () => {
    const store = backend.store();
    const name = uniqueName("save");
    const a = record(name, "a");
    expect(await store.saveIfChanged(a)).toMatchObject({ created: true, head: { specId: a.specId, name, contentHash: "sha256:a" } });
    const again = await store.saveIfChanged(record(name, "a"));
    expect(again).toMatchObject({ created: false, head: headOf(a) });
    const b = record(name, "b");
    expect(await store.saveIfChanged(b)).toMatchObject({ created: true, head: { specId: b.specId } });
    const back = record(name, "a");
    expect(await store.saveIfChanged(back)).toMatchObject({ created: true, head: { specId: back.specId } });
    expect(ids(await backend.reopened().history(name))).toEqual([back.specId, b.specId, a.specId]);
  });

  it("saveIfChanged dates a revision made before the latest after it: the later save is the latest", async () => {
    const store = backend.store();
    const name = uniqueName("clock");
    await store.saveIfChanged(record(name, "a", { createdAt: 5_000 }));
    const late = record(name, "b", { createdAt: 4_000 }); // another process's clock, or its save waited
    const { head } = await store.saveIfChanged(late);
    expect((await store.latestHead(name))?.specId).toBe(late.specId);
    expect(head.createdAt).toBeGreaterThan(5_000);
    expect(head).toMatchObject({ ...(await store.head(late.specId)) });
  });

  it("saveIfChanged from two processes at once: one revision per content, none lost", async () => {
    const stores = [backend.store(), backend.reopened()];
    const same = uniqueName("same");
    const sameOutcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => stores[i % 2].saveIfChanged(record(same, "one"))));
    expect(sameOutcomes.filter((o) => o.created)).toHaveLength(1);
    expect(new Set(sameOutcomes.map((o) => o.head.specId)).size).toBe(1);
    expect(await stores[0].history(same)).toHaveLength(1);

    const different = uniqueName("different");
    const made = Array.from({ length: 8 }, (_, i) => record(different, `v${i}`));
    const outcomes = await Promise.all(made.map((r, i) => stores[i % 2].saveIfChanged(r)));
    expect(outcomes.every((o) => o.created)).toBe(true);
    const history = await stores[1].history(different);
    expect(ids(history).sort()).toEqual(ids(made).sort());
    // Each revision is dated no earlier than the ones committed before it.
    const dates = history.map((h) => h.createdAt);
    expect(dates).toEqual([...dates].sort((x, y) => y - x));
  });

  it("fills in a missing listing", async () => {
    const store = backend.store();
    const r = record(uniqueName("listing"), "a", { listing: null });
    await store.insert(r);
    expect((await store.head(r.specId))?.listing).toBeNull();
    await store.setListing(r.specId, { description: null, nodeCount: 7 });
    expect((await backend.reopened().head(r.specId))?.listing).toEqual({ description: null, nodeCount: 7 });
  });

  it("archives and unarchives names, idempotently", async () => {
    const store = backend.store();
    const name = uniqueName("archived");
    await store.insert(record(name, "a"));
    await store.setArchived(name, true, 1_000);
    await store.setArchived(name, true, 2_000);
    expect((await backend.reopened().archivedNames()).has(name)).toBe(true);
    await store.setArchived(name, false, 3_000);
    await store.setArchived(name, false, 4_000);
    expect((await store.archivedNames()).has(name)).toBe(false);
  });

  it("deletes every revision of a name and its archive mark, and nothing else", async () => {
    const store = backend.store();
    const [name, kept] = [uniqueName("deleted"), uniqueName("kept")];
    for (const r of [record(name, "a"), record(name, "b"), record(kept, "a")]) await store.insert(r);
    await store.setArchived(name, true, 1_000);
    expect(await store.deleteName(name)).toBe(2);
    const other = backend.reopened();
    expect(await other.history(name)).toEqual([]);
    expect(await other.latestHead(name)).toBeNull();
    expect((await other.archivedNames()).has(name)).toBe(false);
    expect(await other.history(kept)).toHaveLength(1);
    expect(await store.deleteName(name)).toBe(0);
  });
}
