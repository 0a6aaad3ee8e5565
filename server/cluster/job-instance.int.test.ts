import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphPayload } from "@/server/graph/payload";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";
import { loadJobInstance } from "./job-instance";

/** What a worker reads to plan a job, in one statement: as the instance, its start and its inputs read apart. */
describe("loadJobInstance", () => {
  let database: PgTestDatabase;
  let db: PgEngineDatabase;
  let store: PgGraphInstanceStore;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    db = database.open();
    store = new PgGraphInstanceStore(db);
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  const invoked = (id: string) =>
    db.acks.query({
      text: `INSERT INTO node_invocations (invocation_id, instance_id, node_id, node_name, version, parent_version, status, started_at)
        VALUES ($1 || ':n', $1, 'n', 'n', 1, NULL, 'RUNNING', now())`,
      values: [id],
    });

  it("is null for an instance that does not exist", async () => {
    expect(await loadJobInstance(db.acks, "nope")).toBeNull();
  });

  it("reads the latest version as load does, whether a running instance started, and its version's input", async () => {
    const made = await store.create({ instanceId: "j1", graphName: "g", nodeIdMap: { a: "x" }, input: graphPayload({ content: "first" }) });
    const fresh = await loadJobInstance(db.acks, "j1");
    expect(fresh).toEqual({ record: await store.load("j1"), started: false, input: graphPayload({ content: "first" }) });
    expect(fresh!.record).toMatchObject({ instanceId: "j1", version: 1, status: "running", nodeIdMap: made.nodeIdMap });
    await invoked("j1");
    expect((await loadJobInstance(db.acks, "j1"))!.started).toBe(true);
    // Asked only of a running instance.
    await store.transition("j1", "paused");
    expect((await loadJobInstance(db.acks, "j1"))!.started).toBe(false);
  });

  it("the input is the current version's", async () => {
    await store.create({ instanceId: "j2", graphName: "g", nodeIdMap: {}, input: graphPayload({ content: "v1" }) });
    await store.transition("j2", "completed");
    await store.beginInvocation("j2", graphPayload({ content: "v2" }));
    const loaded = await loadJobInstance(db.acks, "j2");
    expect(loaded!.record.version).toBe(2);
    expect(loaded!.input).toEqual(graphPayload({ content: "v2" }));
  });
});
