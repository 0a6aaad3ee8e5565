import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { preparePostgres, readPgMigrations } from "./pg-migrate";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * `prisma migrate diff` cannot run here (no schema engine), so, as schema-drift.int.test.ts does for
 * SQLite: the tables and columns the PostgreSQL migrations create must be exactly those
 * prisma/postgres/schema.prisma declares. And the runner is safe to start in several processes at once.
 */

const SCALARS = new Set(["String", "Int", "BigInt", "Float", "Decimal", "Boolean", "DateTime", "Json", "Bytes"]);

/** table → sorted "column" / "column?" (nullable) entries, from the Prisma schema's models. */
function tablesInSchema(schema: string): Record<string, string[]> {
  const tables: Record<string, string[]> = {};
  for (const [, model, body] of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const columns = body
      .split("\n")
      .map((line) => line.replace(/\/\/.*$/, "").trim())
      .filter((line) => line !== "" && !line.startsWith("@@"))
      .flatMap((line) => {
        const [name, type = ""] = line.split(/\s+/);
        if (!SCALARS.has(type.replace(/\?$/, ""))) return [];
        const column = line.match(/@map\("([^"]+)"\)/)?.[1] ?? name;
        return [type.endsWith("?") ? `${column}?` : column];
      });
    tables[body.match(/@@map\("([^"]+)"\)/)?.[1] ?? model] = columns.sort();
  }
  return tables;
}

async function tablesInDatabase(url: string): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string; is_nullable: string }>(
      `SELECT table_name, column_name, is_nullable FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const tables: Record<string, string[]> = {};
    for (const r of rows) (tables[r.table_name] ??= []).push(r.is_nullable === "YES" ? `${r.column_name}?` : r.column_name);
    for (const t of Object.values(tables)) t.sort();
    return tables;
  } finally {
    await client.end();
  }
}

describe("PostgreSQL migrations", () => {
  const databases: PgTestDatabase[] = [];
  const fresh = async () => {
    const db = await PgTestDatabase.create({ migrate: false });
    databases.push(db);
    return db;
  };
  afterEach(async () => {
    for (const db of databases.splice(0)) await db[Symbol.asyncDispose]();
  });

  it("create exactly the tables and columns of prisma/postgres/schema.prisma", async () => {
    const db = await fresh();
    expect(await preparePostgres(db.url)).toEqual(readPgMigrations().map((m) => m.name));
    const schema = readFileSync(path.resolve("prisma/postgres/schema.prisma"), "utf8");
    expect(await tablesInDatabase(db.url)).toEqual(tablesInSchema(schema));
  });

  it("are applied once when five connections migrate at the same moment, as five processes starting would (advisory lock)", async () => {
    const db = await fresh();
    const applied = await Promise.all(Array.from({ length: 5 }, () => preparePostgres(db.url)));
    expect(applied.filter((names) => names.length > 0)).toEqual([readPgMigrations().map((m) => m.name)]);
    expect(await preparePostgres(db.url)).toEqual([]);
  });

  it("refuse a migration edited after it was applied, and roll back a failing one entirely", async () => {
    const db = await fresh();
    await preparePostgres(db.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`UPDATE "_prisma_migrations" SET checksum = 'edited'`);
      await expect(preparePostgres(db.url)).rejects.toThrow(/edited after it was applied/);
    } finally {
      await client.end();
    }

    const other = await fresh();
    const { migratePostgres } = await import("./pg-migrate");
    const broken = [...readPgMigrations(), { name: "29990101000000_broken", sql: "CREATE TABLE zz (a int); SELECT 1/0;", checksum: "x" }];
    const c2 = new pg.Client({ connectionString: other.url });
    await c2.connect();
    try {
      await expect(migratePostgres(c2, broken)).rejects.toThrow(/division by zero/);
      const { rows } = await c2.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`);
      expect(rows[0].n).toBe(0); // not even the bookkeeping table: all or nothing
    } finally {
      await c2.end();
    }
  });
});
