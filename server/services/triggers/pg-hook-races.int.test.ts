import { afterEach, describe, expect, it } from "vitest";
import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { InMemorySpecStore } from "@/server/services/spec-store";
import { SpecService } from "@/server/services/spec-service";
import { HookService } from "./hook-service";
import { PgHookStore } from "./pg-hook-store";

const SPEC = `name: hooked
nodes:
  - { name: echo, node_type: function, config: { op: template, template: "{{input}}" } }
edges:
  - { from: __start__, to: echo }
  - { from: echo, to: __end__ }
`;

/** Web processes on one PostgreSQL creating the same webhook at the same moment. */
describe("hook creation across processes", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it("of eight creates of one hook through two processes exactly one wins; the others get INVALID_STATE; its secret is the stored one", async () => {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    /** A web process: its own pool, its own hook service (each keeps its spec service: the specs are not the point). */
    const web = async () => {
      const db = PgAppDatabase.open({ url: database.url, maxConnections: 4 });
      cleanup.push(() => db.close());
      const specs = new SpecService(new InMemorySpecStore());
      await specs.save(SPEC);
      return new HookService({ store: new PgHookStore(db), specs });
    };
    const [a, b] = [await web(), await web()];
    const settled = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).create({ name: "deploy", spec: "hooked" })));
    const made = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    expect(made).toHaveLength(1);
    for (const s of settled) if (s.status === "rejected") expect(s.reason).toMatchObject({ code: "INVALID_STATE", message: expect.stringContaining("a hook named deploy exists") });
    // The one secret handed out is the one that works, on either process.
    expect((await a.get("deploy"))?.secret).toBe(made[0].secret);
    expect((await b.list()).map((h) => h.name)).toEqual(["deploy"]);
  }, 30_000);
});
