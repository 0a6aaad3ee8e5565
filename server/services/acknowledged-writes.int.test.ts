import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { TurnGate } from "@/server/api/http/turn-gate";
import { setMaxSize } from "@/server/db/graph-database";
import { isServiceError } from "./errors";
import { testServices, type TestServices } from "./testing/test-services";

/** What another connection sees: only committed rows. */
function committedStatuses(t: TestServices, ids: string[]): Map<string, string> {
  const reader = new BetterSqlite3(t.databaseFile!, { readonly: true });
  try {
    const stmt = reader.prepare(`SELECT status FROM graph_instances WHERE instance_id = ? AND is_latest = 1`);
    return new Map(ids.map((id) => [id, (stmt.get(id) as { status: string } | undefined)?.status ?? "missing"]));
  } finally {
    reader.close();
  }
}

function pageCount(t: TestServices): number {
  return t.services.orchestrator.coordinator instanceof Object ? (dbOf(t).pragma("page_count", { simple: true }) as number) : 0;
}

const dbOf = (t: TestServices) => (t.services.orchestrator.coordinator as unknown as { db: BetterSqlite3.Database }).db;

async function createUntilFull(t: TestServices, attempts: number, gate?: TurnGate) {
  const acknowledged: string[] = [];
  const refused: unknown[] = [];
  // Concurrent creates, as a burst of HTTP requests would be: their writes share group commits. With a
  // gate, as the REST route makes them: one per turn, each run deferred behind the burst's creates.
  const create = async (i: number) => {
    await gate?.enter();
    return t.services.orchestrator.create({ spec: "map-reduce", input: ["w", `word${i}`, "x".repeat(i * 40)], startAfter: gate && (() => gate.later()) });
  };
  const results = await Promise.allSettled(Array.from({ length: attempts }, (_, i) => create(i)));
  for (const r of results) {
    if (r.status === "fulfilled") acknowledged.push(r.value.instanceId);
    else refused.push(r.reason);
  }
  return { acknowledged, refused };
}

describe("an acknowledged write is a committed write", () => {
  it("on a full database, creates that answered exist, refused ones say why, and everything completes once space returns", { timeout: 60_000 }, async () => {
    await using t = testServices("sqlite", undefined, { exclusive: true });
    const db = dbOf(t);
    // A quota a few pages above what the file holds now: the burst below runs into it (SQLITE_FULL).
    setMaxSize(db, ((pageCount(t) + 12) * (db.pragma("page_size", { simple: true }) as number)) / (1024 * 1024));

    const first = await createUntilFull(t, 120);
    expect(first.refused.length).toBeGreaterThan(0);
    expect(first.acknowledged.length).toBeGreaterThan(0);
    for (const error of first.refused) {
      expect(isServiceError(error) && error.code).toBe("STORAGE_FULL");
      expect((error as Error).message).toContain(t.databaseFile!);
    }
    // Every id the service returned is committed: another connection sees it.
    for (const [id, status] of committedStatuses(t, first.acknowledged)) expect(status, id).not.toBe("missing");

    // Reads keep working while the database is full.
    expect((await t.services.instances.list({ limit: 500 })).length).toBeGreaterThanOrEqual(first.acknowledged.length);

    // Space returns (the quota is lifted): no restart, writes work again and every acknowledged
    // instance ends completed, with its result once; nothing stays running or crashed.
    setMaxSize(db, 1024);
    await t.services.recovery.pass();
    await t.services.orchestrator.idle();
    await t.services.recovery.pass();
    await t.services.orchestrator.idle();
    for (const id of first.acknowledged) {
      const view = await t.services.instances.get({ instanceId: id });
      expect(view.summary.status, id).toBe("completed");
      expect(view.summary.result?.length, id).toBe(1);
    }
    const again = await createUntilFull(t, 5);
    expect(again.refused).toEqual([]);
    for (const id of again.acknowledged) expect((await t.settled(id)).status).toBe("completed");
  });

  it("runs deferred behind their creates: what answered exists, recovery backs off while the disk stays full, and all complete once space returns", { timeout: 60_000 }, async () => {
    await using t = testServices("sqlite", undefined, { exclusive: true });
    const db = dbOf(t);
    setMaxSize(db, ((pageCount(t) + 12) * (db.pragma("page_size", { simple: true }) as number)) / (1024 * 1024));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const first = await createUntilFull(t, 60, new TurnGate());
      expect(first.acknowledged.length).toBeGreaterThan(0);
      for (const error of first.refused) expect(isServiceError(error) && error.code).toBe("STORAGE_FULL");
      for (const [id, status] of committedStatuses(t, first.acknowledged)) expect(status, id).not.toBe("missing");
      // The deferred runs start on a full disk and are stopped; each one's recovery waits longer every
      // time it is stopped again, so two seconds see a few attempts per instance, not a loop.
      await new Promise((r) => setTimeout(r, 2_000));
      const stops = errors.mock.calls.filter((c) => String(c[0]).includes("stopped by a storage failure")).length;
      expect(stops).toBeLessThanOrEqual(first.acknowledged.length * 4);
      expect((await t.services.instances.list({ limit: 500 })).length).toBeGreaterThanOrEqual(first.acknowledged.length);

      // Space returns: each instance is recovered when its backoff ends (seconds here), without a restart.
      setMaxSize(db, 1024);
      const statuses = async () => Promise.all(first.acknowledged.map(async (id) => (await t.services.instances.get({ instanceId: id })).summary.status));
      for (const deadline = Date.now() + 30_000; Date.now() < deadline && (await statuses()).some((s) => s !== "completed"); ) {
        await new Promise((r) => setTimeout(r, 200));
      }
      await t.services.orchestrator.idle();
      for (const id of first.acknowledged) {
        const view = await t.services.instances.get({ instanceId: id });
        expect(view.summary.status, id).toBe("completed");
        expect(view.summary.result?.length, id).toBe(1);
      }
    } finally {
      errors.mockRestore();
    }
  });

  it("control answers wait for their commit and a refused one changes nothing", { timeout: 30_000 }, async () => {
    await using t = testServices("sqlite", undefined, { exclusive: true });
    const { instanceId } = await t.services.orchestrator.create({ spec: "approval-gate", input: "release" });
    expect((await t.settled(instanceId)).status).toBe("paused");
    const db = dbOf(t);
    setMaxSize(db, (pageCount(t) * (db.pragma("page_size", { simple: true }) as number)) / (1024 * 1024));
    // A large answer needs new pages: refused, and the instance still waits for it.
    await expect(t.services.control.answer(instanceId, "y".repeat(200_000))).rejects.toMatchObject({ code: "STORAGE_FULL" });
    expect(committedStatuses(t, [instanceId]).get(instanceId)).toBe("paused");
    expect((await t.services.instances.get({ instanceId })).waitingFor).not.toBeNull();
    setMaxSize(db, 1024);
    const answered = await t.services.control.answer(instanceId, "yes");
    // The answer is committed when it returns: another connection sees the run past the human.
    expect(["running", "completed"]).toContain(committedStatuses(t, [instanceId]).get(instanceId));
    expect(answered.status).not.toBe("paused");
    expect((await t.settled(instanceId)).status).toBe("completed");
  });
});
