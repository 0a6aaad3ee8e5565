import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { pgInstanceCounter } from "./instance-counts";
import { PgSpecStore } from "./pg-spec-store";
import { SpecService } from "./spec-service";

const spec = (name: string, template: string) => `name: ${name}
nodes:
  - { name: a, node_type: function, config: { op: template, template: "${template}" } }
edges:
  - { from: __start__, to: a }
  - { from: a, to: __end__ }
`;

/** SpecService on PostgreSQL, as two web processes sharing one database use it. */
describe("SpecService on PostgreSQL", () => {
  let database: PgTestDatabase;
  let web: [PgEngineDatabase, PgEngineDatabase];
  const service = (db: PgEngineDatabase) => new SpecService(new PgSpecStore(db.acks), pgInstanceCounter(db.acks));
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    web = [database.open(), database.open()];
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  it("two processes saving at once keep one revision per content, and both see the same list and history", async () => {
    const [a, b] = web.map(service);
    const same = await Promise.all([a.save(spec("same", "x")), b.save(spec("same", "x")), a.save(spec("same", "x"))]);
    expect(same.filter((s) => s.created)).toHaveLength(1);
    expect(new Set(same.map((s) => s.specId)).size).toBe(1);
    const edits = await Promise.all([a.save(spec("edited", "one")), b.save(spec("edited", "two"))]);
    expect(edits.every((s) => s.created)).toBe(true);
    const history = await b.history("edited");
    expect(history.map((h) => h.specId).sort()).toEqual(edits.map((e) => e.specId).sort());
    expect((await a.list()).map((s) => [s.name, s.specId])).toEqual([
      ["edited", history[0].specId],
      ["same", same[0].specId],
    ]);
    // A revision saved by the other process compiles here on first use.
    const compiled = await a.compile(await a.resolve(history[0].specId));
    expect(compiled.graph.name).toBe("edited");
  });

  it("lists instance counts per graph name, archives and refuses to delete a name with instances", async () => {
    const specs = service(web[0]);
    await specs.save(spec("counted", "c"));
    const instances = new PgGraphInstanceStore(web[1]);
    const made = await Promise.all([0, 1, 2].map((i) => instances.create({ graphName: "counted", nodeIdMap: {}, input: { content: i } })));
    await instances.transition(made[0].instanceId, "completed");
    const counted = (await specs.list()).find((s) => s.name === "counted");
    expect(counted?.instances).toEqual({ running: 2, total: 3 });
    await specs.archive("counted");
    expect((await specs.list()).map((s) => s.name)).not.toContain("counted");
    expect((await specs.list({ archived: "only" })).map((s) => s.name)).toEqual(["counted"]);
    await expect(specs.delete("counted")).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(specs.archive("never-saved")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
