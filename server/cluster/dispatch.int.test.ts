import pg from "pg";
import PgBoss from "pg-boss";
import { describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { Dispatch, WORK_QUEUE } from "./dispatch";

async function onDatabase<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Deadlocks PostgreSQL counted in the database, once every other session of it has ended (a session's counts are flushed as it ends). */
async function deadlocksOnceAlone(url: string): Promise<number> {
  return onDatabase(url, async (client) => {
    const others = async () =>
      Number((await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows[0].n);
    await expect.poll(others, { timeout: 10_000 }).toBe(0);
    await client.query("SELECT pg_stat_clear_snapshot()");
    return Number((await client.query("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")).rows[0].deadlocks);
  });
}

describe("Dispatch on a new database", () => {
  it("three processes starting at once (pg-boss installed, no queue yet) each start, with one work queue and no deadlock", async () => {
    for (let round = 0; round < 4; round++) {
      await using database = await PgTestDatabase.create();
      // pg-boss installed, the queue not made yet (the installs alone would space the processes out).
      const installer = new PgBoss({ connectionString: database.url, max: 1, supervise: false, schedule: false });
      await installer.start();
      await installer.stop({ graceful: false, wait: true });
      const dispatches = await Promise.all([0, 1, 2].map(() => Dispatch.start({ url: database.url, supervise: false })));
      await Promise.all(dispatches.map((d) => d.stop()));
      const queues = await onDatabase(database.url, (c) => c.query("SELECT name FROM pgboss.queue WHERE name = $1", [WORK_QUEUE]));
      expect(queues.rows).toHaveLength(1);
      expect(await deadlocksOnceAlone(database.url)).toBe(0);
    }
  }, 120_000);
});
