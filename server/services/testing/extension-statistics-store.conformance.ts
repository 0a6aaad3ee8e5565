import { expect, it } from "vitest";
import type { ExtensionCountsDelta } from "@/server/agent/extensions/extension-manager";
import type { ExtensionStatisticsStore } from "../extensions/extension-statistics-store";

const delta = (name: string, more: Partial<ExtensionCountsDelta> = {}): ExtensionCountsDelta => ({ name, calls: 1, failures: 0, vetoes: 0, timeMs: 0.5, counters: {}, ...more });

/**
 * The ExtensionStatisticsStore contract, run on the in-memory, SQLite and PostgreSQL stores. `fresh`
 * starts from empty statistics; `other` (shared stores): a second process's store on the same data;
 * `reopened` (durable stores): a store on a new connection, as after a restart.
 */
export function extensionStatisticsStoreConformance(backend: {
  fresh: () => Promise<ExtensionStatisticsStore>;
  other?: () => Promise<ExtensionStatisticsStore>;
  reopened?: () => Promise<ExtensionStatisticsStore>;
}): void {
  it("sums every batch of an extension: calls, failures, vetoes, time and its own counters", async () => {
    const store = await backend.fresh();
    const { generation, byName } = await store.totals();
    expect(byName).toEqual(new Map());
    expect(await store.add([delta("logging"), delta("token_budget", { vetoes: 1, counters: { vetoed: 1 } })], generation)).toBe(generation);
    expect(await store.add([delta("token_budget", { calls: 3, failures: 1, timeMs: 2, counters: { vetoed: 2, other: 0.5 } })], generation)).toBe(generation);
    const totals = (await store.totals()).byName;
    expect(totals.get("logging")).toEqual({ calls: 1, failures: 0, vetoes: 0, timeMs: 0.5, counters: {} });
    expect(totals.get("token_budget")).toEqual({ calls: 4, failures: 1, vetoes: 1, timeMs: 2.5, counters: { vetoed: 3, other: 0.5 } });
  });

  it("keeps the newest latest failure, whichever batch brings it", async () => {
    const store = await backend.fresh();
    const { generation } = await store.totals();
    const newer = { point: "BEFORE_LLM_CALL" as const, message: "Error: newer", at: 2_000 };
    await store.add([delta("quota", { failures: 1, lastError: newer })], generation);
    await store.add([delta("quota", { failures: 1, lastError: { point: "AFTER_LLM_RESPONSE", message: "Error: older", at: 1_000 } })], generation);
    await store.add([delta("quota")], generation);
    expect((await store.totals()).byName.get("quota")).toMatchObject({ failures: 2, lastError: newer });
  });

  it("a reset empties every extension's statistics and moves the generation on; a batch counted before it adds nothing", async () => {
    const store = await backend.fresh();
    const { generation } = await store.totals();
    await store.add([delta("logging", { counters: { lines: 2 }, failures: 1, lastError: { point: "LOOP_COMPLETE", message: "x", at: 1 } })], generation);
    const next = await store.reset();
    expect(next).not.toBe(generation);
    expect(await store.totals()).toEqual({ generation: next, byName: new Map() });
    expect(await store.add([delta("logging")], generation)).toBe(next);
    expect((await store.totals()).byName).toEqual(new Map());
    expect(await store.add([delta("logging")], next)).toBe(next);
    expect((await store.totals()).byName.get("logging")).toMatchObject({ calls: 1 });
  });

  it("an empty batch answers the generation and changes nothing", async () => {
    const store = await backend.fresh();
    const { generation } = await store.totals();
    expect(await store.add([], -1)).toBe(generation);
    expect((await store.totals()).byName).toEqual(new Map());
  });

  it("hands out a copy: changing the answer changes nothing stored", async () => {
    const store = await backend.fresh();
    const { generation } = await store.totals();
    await store.add([delta("logging", { counters: { n: 1 } })], generation);
    const totals = (await store.totals()).byName;
    totals.get("logging")!.calls = 99;
    totals.get("logging")!.counters.n = 99;
    expect((await store.totals()).byName.get("logging")).toMatchObject({ calls: 1, counters: { n: 1 } });
  });

  if (backend.other) {
    const other = backend.other;
    it("two processes' batches add up, also when they add at the same moment; a reset by one drops the other's stale batch", async () => {
      const a = await backend.fresh();
      const b = await other();
      const { generation } = await a.totals();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).add([delta("logging", { counters: { lines: 1 } }), delta("secret_masking", { calls: 2 })], generation)),
      );
      expect((await b.totals()).byName.get("logging")).toMatchObject({ calls: 20, counters: { lines: 20 } });
      expect((await a.totals()).byName.get("secret_masking")).toMatchObject({ calls: 40 });
      const next = await a.reset();
      expect(await b.add([delta("logging")], generation)).toBe(next);
      expect((await b.totals()).byName).toEqual(new Map());
    });
  }

  if (backend.reopened) {
    const reopened = backend.reopened;
    it("a batch is committed when it has answered: a new connection reads it", async () => {
      const store = await backend.fresh();
      const { generation } = await store.totals();
      await store.add([delta("logging", { counters: { lines: 3 } })], generation);
      const again = await reopened();
      expect((await again.totals()).byName.get("logging")).toEqual({ calls: 1, failures: 0, vetoes: 0, timeMs: 0.5, counters: { lines: 3 } });
    });
  }
}
