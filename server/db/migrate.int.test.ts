import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createPrismaClient } from "./client";
import { migrate, prepareDatabaseFile, readMigrations } from "./migrate";

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
});
