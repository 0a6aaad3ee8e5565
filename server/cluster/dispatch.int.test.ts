import PgBoss from "pg-boss";
import { describe, expect, it } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { Dispatch, WORK_QUEUE } from "./dispatch";

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
      const queues = await database.withClient((c) => c.query("SELECT name FROM pgboss.queue WHERE name = $1", [WORK_QUEUE]));
      expect(queues.rows).toHaveLength(1);
      expect(await database.deadlocksOnceAlone()).toBe(0);
    }
  }, 120_000);
});
