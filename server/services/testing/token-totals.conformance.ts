import { expect, it } from "vitest";
import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";

/**
 * The TokenTotals contract (token_budget's per-instance totals), run on memory, SQLite and PostgreSQL.
 * `other` (shared stores): a second process's on the same data; `reopened`: after a restart.
 */
export function tokenTotalsConformance(backend: { fresh: () => Promise<TokenTotals>; other?: () => Promise<TokenTotals>; reopened?: () => Promise<TokenTotals> }): void {
  it("a scope's total starts at 0, sums what is added, and is let go by forget; scopes are apart", async () => {
    const totals = await backend.fresh();
    expect(await totals.get("run1")).toBe(0);
    await totals.add("run1", 120);
    await totals.add("run1", 30);
    await totals.add("run2", 5);
    expect(await totals.get("run1")).toBe(150);
    await totals.forget("run1");
    expect(await totals.get("run1")).toBe(0);
    expect(await totals.get("run2")).toBe(5);
  });

  if (backend.other) {
    const other = backend.other;
    it("two processes adding to one scope at the same moment lose nothing (an atomic add)", async () => {
      const a = await backend.fresh();
      const b = await other();
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).add("shared", 10)));
      expect(await a.get("shared")).toBe(400);
      expect(await b.get("shared")).toBe(400);
    });
  }

  if (backend.reopened) {
    const reopened = backend.reopened;
    it("a total outlives the connection: a restart continues it", async () => {
      const totals = await backend.fresh();
      await totals.add("run1", 70);
      await new Promise((resolve) => setImmediate(resolve)); // SQLite: the add commits with the next macrotask at the latest
      const again = await reopened();
      expect(await again.get("run1")).toBe(70);
    });
  }
}
