import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
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

async function createUntilFull(t: TestServices, attempts: number) {
  const acknowledged: string[] = [];
  const refused: unknown[] = [];
  // Concurrent creates, as a burst of HTTP requests would be: their writes share group commits.
  const results = await Promise.allSettled(
    Array.from({ length: attempts }, (_, i) => t.services.orchestrator.create({ spec: "map-reduce", input: ["w", `word${i}`, "x".repeat(i * 40)] })),
  );
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
