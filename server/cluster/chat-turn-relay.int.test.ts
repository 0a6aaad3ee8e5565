import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import type { RelayedTurnRequest } from "@/server/services/chat-service";
import { ChatTurnRelay } from "./chat-turn-relay";

/**
 * The relay between two web processes on one database: a request and its answer each travel by NOTIFY,
 * which a LISTEN connection that is reconnecting never hears.
 */
describe("ChatTurnRelay across a cut LISTEN connection", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function setup(options: { timeoutMs: number; reconnectMs: number }) {
    const db = await PgTestDatabase.create();
    cleanup.push(() => db[Symbol.asyncDispose]());
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    cleanup.push(() => pool.end());
    for (const id of ["owner", "asker"]) {
      await pool.query("INSERT INTO cluster_processes (process_id, role, host, pid, started_at, expires_at) VALUES ($1, 'web', 'h', 1, now(), now() + interval '1 minute')", [id]);
    }
    const start = (me: string) => ChatTurnRelay.start({ url: db.url, db: pool, me, onGone: async () => undefined, ...options });
    const owner = await start("owner");
    const asker = await start("asker");
    cleanup.push(() => owner.close(), () => asker.close());
    const applied: RelayedTurnRequest[] = [];
    owner.serve(async (request) => {
      applied.push(request);
      return { applied: true };
    });
    /** Cuts `relay`'s LISTEN connection and waits until it knows (a NOTIFY sent from now on is lost to it until it reconnects). */
    const cut = async (relay: ChatTurnRelay) => {
      const pid = relay.backendPid;
      await pool.query("SELECT pg_terminate_backend($1)", [pid]);
      await expect.poll(() => relay.backendPid, { timeout: 2_000, interval: 5 }).toBeUndefined();
    };
    return { owner, asker, applied, cut };
  }

  const request: RelayedTurnRequest = { kind: "cancel", sessionId: "s1", turnId: "t1" };

  it("a request sent while the owner's LISTEN connection reconnects is applied once it is back, and answered", async () => {
    const { owner, asker, applied, cut } = await setup({ timeoutMs: 4_000, reconnectMs: 600 });
    await cut(owner);
    const startedAt = Date.now();
    expect(await asker.ask("owner", request)).toEqual({ applied: true });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(applied).toEqual([request]);
  }, 20_000);

  it("an answer sent while the asker's LISTEN connection reconnects reaches it once it is back; the request is applied once", async () => {
    const { asker, owner, applied, cut } = await setup({ timeoutMs: 4_000, reconnectMs: 600 });
    let answered!: () => void;
    const held = new Promise<void>((resolve) => (answered = resolve));
    owner.serve(async (r) => {
      applied.push(r);
      await held;
      return { applied: true };
    });
    const asking = asker.ask("owner", request);
    await expect.poll(() => applied.length).toBe(1);
    await cut(asker);
    answered();
    expect(await asking).toEqual({ applied: true });
    expect(applied).toEqual([request]);
  }, 20_000);

  it("an owner that stays silent (alive for the cluster, never listening again) is asked again until the bound, then the caller gets PEER_UNAVAILABLE", async () => {
    const { owner, asker, applied } = await setup({ timeoutMs: 1_500, reconnectMs: 200 });
    await owner.close();
    const startedAt = Date.now();
    const error = await asker.ask("owner", request).catch((e: unknown) => e);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_400);
    expect(error).toMatchObject({ name: "ServiceError", code: "PEER_UNAVAILABLE", message: expect.stringMatching(/did not answer within 1500 ms \(asked [3-9] times\)/) });
    expect(applied).toEqual([]);
  }, 20_000);
});
