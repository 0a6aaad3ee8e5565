import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createPrismaClient } from "./client";
import { migrate, prepareDatabaseFile, readMigrations } from "./migrate";
import { SqliteDeliverStore } from "./sqlite-deliver-store";

/** A temporary folder removed when the test's scope ends. */
function tempDir(): { path: string } & Disposable {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-migrate-"));
  return { path: dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

function writeMigration(dir: string, name: string, sql: string): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, "migration.sql"), sql);
}

describe("migrate", () => {
  it("applies the project's migrations once, and the Prisma client can use the result", async () => {
    using dir = tempDir();
    const file = path.join(dir.path, "nested", "modex.db");
    expect(prepareDatabaseFile(file)).toEqual(readMigrations().map((m) => m.name));
    expect(prepareDatabaseFile(file)).toEqual([]);

    const prisma = createPrismaClient(file);
    try {
      await prisma.meta.create({ data: { key: "created", value: "yes" } });
      expect(await prisma.meta.findUnique({ where: { key: "created" } })).toEqual({ key: "created", value: "yes" });
    } finally {
      await prisma.$disconnect();
    }
  });

  it("applies migrations in name order and records them in _prisma_migrations", () => {
    using dir = tempDir();
    writeMigration(dir.path, "2_add", `INSERT INTO "T" VALUES (2);`);
    writeMigration(dir.path, "1_create", `CREATE TABLE "T" ("n" INTEGER);`);
    const db = new BetterSqlite3(":memory:");
    expect(migrate(db, readMigrations(dir.path))).toEqual(["1_create", "2_add"]);
    expect(db.prepare(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`).pluck().all()).toEqual(
      ["1_create", "2_add"],
    );
    expect(db.prepare(`SELECT n FROM "T"`).pluck().all()).toEqual([2]);
  });

  it("leaves no trace of a migration that fails", () => {
    using dir = tempDir();
    writeMigration(dir.path, "1_bad", `CREATE TABLE "A" ("x" INTEGER); THIS IS NOT SQL;`);
    const db = new BetterSqlite3(":memory:");
    expect(() => migrate(db, readMigrations(dir.path))).toThrow();
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'A'`).all()).toEqual([]);
    expect(db.prepare(`SELECT COUNT(*) FROM "_prisma_migrations"`).pluck().get()).toBe(0);
  });

  it("refuses a migration edited after it was applied", () => {
    using dir = tempDir();
    writeMigration(dir.path, "1_create", `CREATE TABLE "T" ("n" INTEGER);`);
    const db = new BetterSqlite3(":memory:");
    migrate(db, readMigrations(dir.path));
    writeMigration(dir.path, "1_create", `CREATE TABLE "T" ("n" INTEGER, "m" TEXT);`);
    expect(() => migrate(db, readMigrations(dir.path))).toThrow(/1_create was edited/);
  });

  it("keeps every deliver row, in each instance's order, when the ledger is rebuilt on (instance, seq)", () => {
    const all = readMigrations();
    const lean = all.findIndex((m) => m.name.endsWith("_lean_deliver_ledger"));
    const db = new BetterSqlite3(":memory:");
    migrate(db, all.slice(0, lean));
    const insert = db.prepare(`INSERT INTO deliver_rows (deliver_id, instance_id, source_node, source_node_id,
      target_node, target_node_id, content, status, created_at) VALUES (?, ?, 's', 'n_s', 't', 'n_t', ?, 'PENDING', 0)`);
    for (const [id, instance] of [["d1", "i1"], ["d2", "i2"], ["d3", "i1"], ["d4", "i2"]]) insert.run(id, instance, `"${id}"`);

    migrate(db, all);
    const rows = db.prepare(`SELECT instance_id, deliver_id, content FROM deliver_rows ORDER BY instance_id, seq`).all();
    expect(rows).toEqual([
      { instance_id: "i1", deliver_id: "d1", content: '"d1"' },
      { instance_id: "i1", deliver_id: "d3", content: '"d3"' },
      { instance_id: "i2", deliver_id: "d2", content: '"d2"' },
      { instance_id: "i2", deliver_id: "d4", content: '"d4"' },
    ]);
    // A new row continues its instance's order.
    db.prepare(`INSERT INTO deliver_rows (instance_id, seq, deliver_id, source_node, source_node_id, target_node,
      target_node_id, content, status, created_at)
      VALUES ('i1', (SELECT max(seq) FROM deliver_rows WHERE instance_id = 'i1') + 1, 'd5', 's', 'n_s', 't', 'n_t', 'null', 'PENDING', 0)`).run();
    expect(db.prepare(`SELECT deliver_id FROM deliver_rows WHERE instance_id = 'i1' ORDER BY seq`).pluck().all()).toEqual(["d1", "d3", "d5"]);
  });

  it("prefixes existing invocation ids, and the ledger's references to them, with their instance's id", () => {
    const all = readMigrations();
    const at = all.findIndex((m) => m.name.endsWith("_invocation_ids_by_instance"));
    const db = new BetterSqlite3(":memory:");
    migrate(db, all.slice(0, at));
    db.prepare(`INSERT INTO node_invocations (invocation_id, instance_id, node_id, node_name, version, status, started_at)
      VALUES ('111', 'i1', 'node_a', 'a', 1, 'COMPLETED', 0), ('222', 'i1', 'node_b', 'b', 1, 'COMPLETED', 0)`).run();
    db.prepare(`INSERT INTO deliver_rows (instance_id, seq, deliver_id, source_node, source_node_id, source_invocation_id,
      target_node, target_node_id, content, status, consumed_by, created_at)
      VALUES ('i1', 1, 'd1', 'a', 'node_a', '111', 'b', 'node_b', 'null', 'CONSUMED_COMPLETED', '222', 0),
             ('i1', 2, 'd2', '__external__', 'x', NULL, 'a', 'node_a', 'null', 'PENDING', NULL, 0)`).run();

    migrate(db, all);
    expect(db.prepare(`SELECT invocation_id FROM node_invocations ORDER BY invocation_id`).pluck().all()).toEqual(["i1.111", "i1.222"]);
    expect(db.prepare(`SELECT source_invocation_id, consumed_by FROM deliver_rows ORDER BY seq`).all()).toEqual([
      { source_invocation_id: "i1.111", consumed_by: "i1.222" },
      { source_invocation_id: null, consumed_by: null },
    ]);
  });
  it("keeps every instance version and IO record when both tables are clustered on their key", () => {
    const all = readMigrations();
    const at = all.findIndex((m) => m.name.endsWith("_lean_instances"));
    const db = new BetterSqlite3(":memory:");
    migrate(db, all.slice(0, at));
    db.prepare(`INSERT INTO graph_instances (instance_id, version, is_latest, status, graph_name, node_id_map, attrs, state,
      created_at, updated_at) VALUES ('i1', 1, 0, 'completed', 'g', '{}', '{}', '{"n":1}', 1, 2),
      ('i1', 2, 1, 'paused', 'g', '{}', '{"heartbeat":3}', NULL, 3, 4), ('i2', 1, 1, 'running', 'h', '{"a":"node_a"}', '{}', NULL, 5, 6)`).run();
    db.prepare(`INSERT INTO graph_io_records (instance_id, version, input, output) VALUES ('i1', 1, '"in"', '["out"]'), ('i1', 2, '"again"', NULL)`).run();
    const instances = db.prepare(`SELECT * FROM graph_instances ORDER BY instance_id, version`).all();
    const io = db.prepare(`SELECT * FROM graph_io_records ORDER BY instance_id, version`).all();

    migrate(db, all.slice(0, at + 1));
    expect(db.prepare(`SELECT * FROM graph_instances ORDER BY instance_id, version`).all()).toEqual(instances);
    expect(db.prepare(`SELECT * FROM graph_io_records ORDER BY instance_id, version`).all()).toEqual(io);
    expect(db.prepare(`SELECT instance_id FROM graph_instances WHERE is_latest = 1 AND status = 'paused'`).pluck().all()).toEqual(["i1"]);
  });
  it("gives every instance version a low-water mark below its first open deliver row, and drops the consumable index", () => {
    const all = readMigrations();
    const at = all.findIndex((m) => m.name.endsWith("_deliver_low_water"));
    const db = new BetterSqlite3(":memory:");
    migrate(db, all.slice(0, at));
    db.prepare(`INSERT INTO graph_instances (instance_id, version, is_latest, status, graph_name, node_id_map, attrs, state,
      created_at, updated_at) VALUES ('i1', 1, 0, 'completed', 'g', '{}', '{}', NULL, 1, 2), ('i1', 2, 1, 'paused', 'g', '{}', '{}', NULL, 3, 4),
      ('i2', 1, 1, 'running', 'g', '{}', '{}', NULL, 5, 6), ('i3', 1, 1, 'completed', 'g', '{}', '{}', NULL, 7, 8),
      ('i4', 1, 1, 'running', 'g', '{}', '{}', NULL, 9, 10), ('i5', 1, 1, 'running', 'g', '{}', '{}', NULL, 11, 12)`).run();
    const ledger: Record<string, (string | null)[]> = {
      i1: ["CONSUMED_COMPLETED", "CONSUMED_COMPLETED", "PENDING", "CONSUMED_COMPLETED", "CONSUMED_PENDING"],
      i2: ["CONSUMED_COMPLETED", "STAGED", "PENDING"],
      i3: ["CONSUMED_COMPLETED", "CONSUMED_COMPLETED"],
      // Row 2 was STAGED and discarded: row 3, STAGED, may be discarded too, and the next row is then 2.
      i5: ["CONSUMED_COMPLETED", null, "STAGED"],
    };
    const insert = db.prepare(`INSERT INTO deliver_rows (instance_id, seq, deliver_id, source_node, source_node_id, target_node,
      target_node_id, content, status, created_at) VALUES (?, ?, ?, 's', 'n_s', 't', 'n_t', 'null', ?, 0)`);
    for (const [instance, statuses] of Object.entries(ledger)) {
      statuses.forEach((status, i) => status && insert.run(instance, i + 1, `${instance}-${i + 1}`, status));
    }
    const rows = db.prepare(`SELECT * FROM deliver_rows ORDER BY instance_id, seq`).all();
    const instances = db.prepare(`SELECT * FROM graph_instances ORDER BY instance_id, version`).all() as object[];

    migrate(db, all);
    expect(db.prepare(`SELECT * FROM deliver_rows ORDER BY instance_id, seq`).all()).toEqual(rows);
    const marks = db.prepare(`SELECT * FROM graph_instances ORDER BY instance_id, version`).all() as Array<{ deliver_low_water: number }>;
    expect(marks.map(({ deliver_low_water, ...rest }) => rest)).toEqual(instances);
    expect(marks.map((r) => r.deliver_low_water)).toEqual([3, 3, 2, 3, 1, 2]);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'deliver_rows_consumable_idx'`).all()).toEqual([]);
    // From the mark, the ledger's open rows are exactly those of the whole ledger.
    const store = new SqliteDeliverStore(db);
    for (const instance of Object.keys(ledger)) {
      const everywhere = store.listByInstance(instance).filter((r) => r.status !== "CONSUMED_COMPLETED");
      expect(store.listByStatus(instance, ["STAGED", "PENDING", "CONSUMED_PENDING"])).toEqual(everywhere);
    }
    // A new instance starts at seq 1.
    db.prepare(`INSERT INTO graph_instances (instance_id, version, is_latest, status, graph_name, node_id_map, attrs,
      created_at, updated_at) VALUES ('i6', 1, 1, 'running', 'g', '{}', '{}', 13, 13)`).run();
    expect(db.prepare(`SELECT deliver_low_water FROM graph_instances WHERE instance_id = 'i6'`).pluck().get()).toBe(1);
  });
});
