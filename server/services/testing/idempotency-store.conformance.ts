import { expect, it } from "vitest";
import { isKeyTaken, type IdempotencyStore } from "../idempotency-store";

/** What the suite needs of a backend: a store on an empty table. */
export type IdempotencyStoreFactory = () => Promise<IdempotencyStore>;

const row = (key: string, scope = "create") => ({ scope, key, fingerprint: `fp-${key}`, reference: `ref-${key}` });

/** The IdempotencyStore contract, run on the in-memory, SQLite and PostgreSQL stores. */
export function idempotencyStoreConformance(fresh: IdempotencyStoreFactory): void {
  it("put then get: the row as written, with no answer yet; an unknown key is null", async () => {
    const store = await fresh();
    const before = Date.now();
    await store.put(row("a"));
    const found = await store.get("create", "a");
    expect(found).toMatchObject({ scope: "create", key: "a", fingerprint: "fp-a", reference: "ref-a", status: null, response: null });
    expect(found!.createdAt).toBeGreaterThanOrEqual(before - 1);
    expect(found!.createdAt).toBeLessThanOrEqual(Date.now() + 1);
    expect(await store.get("create", "b")).toBeNull();
    expect(await store.get("other", "a")).toBeNull();
  });

  it("a second put of one key is refused with an error isKeyTaken knows; the same key in another scope is another key", async () => {
    const store = await fresh();
    await store.put(row("a"));
    let error: unknown = null;
    try {
      await store.put({ ...row("a"), fingerprint: "another" });
    } catch (e) {
      error = e;
    }
    expect(isKeyTaken(error)).toBe(true);
    expect((await store.get("create", "a"))!.fingerprint).toBe("fp-a");
    await store.put(row("a", "answer:1"));
    expect(await store.get("answer:1", "a")).toMatchObject({ reference: "ref-a" });
  });

  it("refer names what the work made; complete stores the answer (JSON, as it was)", async () => {
    const store = await fresh();
    await store.put({ ...row("a"), reference: "" });
    await store.refer("create", "a", "instance-1");
    const body = { instanceId: "instance-1", version: 1, nested: { list: [1, "two", null], ok: true } };
    await store.complete("create", "a", 201, body);
    expect(await store.get("create", "a")).toMatchObject({ reference: "instance-1", status: 201, response: body });
    await store.complete("create", "missing", 200, {}); // nothing to complete: no row appears
    expect(await store.get("create", "missing")).toBeNull();
  });

  it("remove forgets the key; given a creation time, only the row made then", async () => {
    const store = await fresh();
    await store.put(row("a"));
    await store.put(row("b"));
    const made = (await store.get("create", "b"))!.createdAt;
    await store.remove("create", "b", made - 1);
    expect(await store.get("create", "b")).not.toBeNull();
    await store.remove("create", "b", made);
    expect(await store.get("create", "b")).toBeNull();
    await store.remove("create", "a");
    expect(await store.get("create", "a")).toBeNull();
    await store.put(row("a")); // free again
  });

  it("prune forgets the keys made before a time and says how many", async () => {
    const store = await fresh();
    await store.put(row("old"));
    await new Promise((r) => setTimeout(r, 5));
    const cut = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await store.put(row("new"));
    expect(await store.prune(cut)).toBe(1);
    expect(await store.get("create", "old")).toBeNull();
    expect(await store.get("create", "new")).not.toBeNull();
    expect(await store.prune(cut)).toBe(0);
  });
}
