import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { IdempotencyService } from "./idempotency-service";
import { InMemoryIdempotencyStore, isKeyTaken, SqliteIdempotencyStore } from "./idempotency-store";
import { PgIdempotencyStore } from "./pg-idempotency-store";
import { idempotencyStoreConformance } from "./testing/idempotency-store.conformance";

describe("InMemoryIdempotencyStore", () => {
  idempotencyStoreConformance(async () => new InMemoryIdempotencyStore());
});

describe("SqliteIdempotencyStore", () => {
  const temps: TempDatabase[] = [];
  afterAll(() => temps.forEach((t) => t[Symbol.dispose]()));
  idempotencyStoreConformance(async () => {
    const temp = new TempDatabase();
    temps.push(temp);
    return new SqliteIdempotencyStore(temp.db);
  });
});

describe("PgIdempotencyStore", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  const fresh = async () => {
    const db = database.open();
    await db.acks.query({ text: "TRUNCATE idempotency_keys" });
    return new PgIdempotencyStore(db.acks);
  };

  idempotencyStoreConformance(fresh);

  it("two processes putting one key at the same moment: exactly one wins, the other learns the key is taken", async () => {
    const one = await fresh();
    const two = new PgIdempotencyStore(database.open().acks); // another process's pool
    for (let round = 0; round < 20; round++) {
      const key = `race-${round}`;
      const results = await Promise.allSettled([
        one.put({ scope: "create", key, fingerprint: "fp", reference: "" }),
        two.put({ scope: "create", key, fingerprint: "fp", reference: "" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(isKeyTaken(lost.reason)).toBe(true);
    }
  });

  it("two web processes receiving one Idempotency-Key at once: the work runs once; the other answers the first answer or 409", async () => {
    await fresh();
    const services = [new IdempotencyService(new PgIdempotencyStore(database.open().acks)), new IdempotencyService(new PgIdempotencyStore(database.open().acks))];
    for (let round = 0; round < 10; round++) {
      let executions = 0;
      const key = `key-${round}`;
      const call = (service: IdempotencyService) =>
        service.run({
          key,
          scope: "create",
          request: { spec: "s" },
          status: 201,
          execute: async (claim) => {
            executions++;
            const instanceId = `instance-${round}`;
            claim?.(instanceId);
            await new Promise((r) => setTimeout(r, 20)); // the run starting
            return { instanceId };
          },
          reconstruct: async (reference) => (reference === `instance-${round}` ? { instanceId: reference } : null),
        });
      const results = await Promise.allSettled(services.map(call));
      expect(executions).toBe(1);
      const answers = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      expect(answers.filter((a) => !a.replayed)).toEqual([{ status: 201, body: { instanceId: `instance-${round}` }, replayed: false }]);
      for (const a of answers.filter((a) => a.replayed)) expect(a.body).toEqual({ instanceId: `instance-${round}` });
      for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "IDEMPOTENCY_IN_PROGRESS", message: expect.stringMatching(/still in progress/) });
      // Afterwards, either process replays the first answer.
      expect(await call(services[round % 2])).toEqual({ status: 201, body: { instanceId: `instance-${round}` }, replayed: true });
      expect(executions).toBe(1);
    }
  });
});
