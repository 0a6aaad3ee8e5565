import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRAPH_ERROR_CODES, isInstanceStateError } from "@/server/graph/errors";
import { graphPayload } from "@/server/graph/payload";
import type { PgQueryable } from "./pg-database";
import { PgGraphInstanceStore } from "./pg-instance-store";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * PgGraphInstanceStore.holdRunWrites (a worker's store): a run's state save and output are written in
 * the statement of the status change that follows them, and are never lost or reordered behind it.
 */
describe("held run writes on PostgreSQL", () => {
  let database: PgTestDatabase;
  let plain: PgGraphInstanceStore;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    plain = new PgGraphInstanceStore(database.open());
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  /** A holding store whose statements are counted by name. */
  function holding() {
    const db = database.open();
    const names: string[] = [];
    const counted = (pool: PgQueryable): PgQueryable => ({
      query: <R extends pg.QueryResultRow>(config: pg.QueryConfig) => (names.push(config.name ?? config.text), pool.query<R>(config)),
    });
    const store = new PgGraphInstanceStore({ acks: counted(db.acks), steps: counted(db.steps) });
    store.holdRunWrites();
    return { store, names };
  }

  async function created(id: string) {
    await plain.create({ instanceId: id, graphName: "g", nodeIdMap: {}, input: graphPayload({ content: id }) });
  }

  const row = async (id: string) => (await plain.load(id))!;
  const stateOf = (id: string) => plain.loadState(id);
  const outputOf = async (id: string) => (await plain.ioRecords(id)).map((r) => r.output);

  it("writes the state and the output in the statement of the status change after them", async () => {
    await created("h1");
    const { store, names } = holding();
    await store.saveState("h1", { step: 1 });
    await store.recordOutput("h1", 1, [graphPayload({ content: "out" })]);
    expect(names).toEqual([]);
    expect(await stateOf("h1")).toBeNull(); // nothing committed yet: nothing was acknowledged
    const done = await store.transition("h1", "completed");
    expect(names).toEqual(["modex_instance_transitionWithRunWrites"]);
    expect(done.status).toBe("completed");
    expect(await stateOf("h1")).toEqual({ step: 1 });
    expect(await outputOf("h1")).toEqual([[graphPayload({ content: "out" })]]);
    // Nothing held: the plain compare-and-swap.
    await created("h1b");
    await store.transition("h1b", "paused");
    expect(names.at(-1)).toBe("modex_instance_transition");
  });

  it("a read of the state or the outputs, or a new version, writes what is held first", async () => {
    await created("h2");
    const { store } = holding();
    await store.saveState("h2", { step: 2 });
    expect(await store.loadState("h2")).toEqual({ step: 2 });
    await store.recordOutput("h2", 1, [graphPayload({ content: "o2" })]);
    expect((await store.ioRecords("h2")).map((r) => r.output)).toEqual([[graphPayload({ content: "o2" })]]);
    await store.transition("h2", "completed");
    await store.saveState("h2", { step: 3 });
    const next = await store.beginInvocation("h2", graphPayload({ content: "again" }));
    expect(next.version).toBe(2);
    // The held state went to the version it was saved for, before the new one opened.
    const { rows } = await database.open().acks.query("SELECT version, state::text FROM graph_instances WHERE instance_id = 'h2' ORDER BY version");
    expect(rows).toEqual([
      { version: 1, state: '{"step":3}' },
      { version: 2, state: null },
    ]);
  });

  it("a status change whose compare-and-swap loses still saves what was held, and is refused", async () => {
    await created("h3");
    await plain.transition("h3", "paused");
    const { store } = holding();
    await store.saveState("h3", { step: 4 });
    await store.recordOutput("h3", 1, [graphPayload({ content: "o3" })]);
    const error = await store.transition("h3", "completed", ["running"]).catch((e: unknown) => e);
    expect(isInstanceStateError(error)).toBe(true);
    expect((await row("h3")).status).toBe("paused");
    expect(await stateOf("h3")).toEqual({ step: 4 });
    expect(await outputOf("h3")).toEqual([[graphPayload({ content: "o3" })]]);
  });

  it("writeHeld writes what a run left held (no status change came); a failed write is told once", async () => {
    await created("h4");
    const { store, names } = holding();
    await store.saveState("h4", { step: 5 });
    await store.writeHeld("h4");
    expect(names).toEqual(["modex_instance_saveState"]);
    expect(await stateOf("h4")).toEqual({ step: 5 });
    await store.saveState("missing", { step: 6 });
    await expect(store.writeHeld()).rejects.toMatchObject({ code: GRAPH_ERROR_CODES.INSTANCE_NOT_FOUND });
    await store.writeHeld(); // taken: not tried again
    expect(names.filter((n) => n === "modex_instance_saveState")).toHaveLength(2);
  });

  it("a store that does not hold writes at once", async () => {
    await created("h5");
    await plain.saveState("h5", { step: 7 });
    expect(await database.open().acks.query("SELECT state::text FROM graph_instances WHERE instance_id = 'h5'").then((r) => r.rows[0].state)).toBe('{"step":7}');
  });
});
