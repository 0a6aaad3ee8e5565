import { readFileSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate } from "./migrate";

/**
 * `prisma migrate diff` cannot run here (no schema engine), so this test stands in for it: the tables and
 * columns the migrations create must be exactly those schema.prisma declares. It catches a schema change
 * without a migration, or a migration without the schema change. Column types are not compared.
 */

const SCALARS = new Set(["String", "Int", "BigInt", "Float", "Decimal", "Boolean", "DateTime", "Json", "Bytes"]);

/** table → sorted "column" / "column?" (nullable) entries, from the Prisma schema's models. */
function tablesInSchema(schema: string): Record<string, string[]> {
  const enums = new Set([...schema.matchAll(/^enum\s+(\w+)\s*\{/gm)].map((m) => m[1]));
  const tables: Record<string, string[]> = {};
  for (const [, model, body] of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const columns = body
      .split("\n")
      .map((line) => line.replace(/\/\/.*$/, "").trim())
      .filter((line) => line !== "" && !line.startsWith("@@"))
      .flatMap((line) => {
        const [name, type = ""] = line.split(/\s+/);
        const base = type.replace(/\?$/, "");
        if (!SCALARS.has(base) && !enums.has(base)) return []; // relation fields and lists have no column
        const column = line.match(/@map\("([^"]+)"\)/)?.[1] ?? name;
        return [type.endsWith("?") ? `${column}?` : column];
      });
    tables[body.match(/@@map\("([^"]+)"\)/)?.[1] ?? model] = columns.sort();
  }
  return tables;
}

function tablesInDatabase(db: BetterSqlite3.Database): Record<string, string[]> {
  // Virtual tables (FTS5) and their shadow tables are beyond Prisma's schema language: migrations only.
  const virtual = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`).pluck().all() as string[];
  const names = (
    db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`)
      .pluck()
      .all() as string[]
  ).filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
  return Object.fromEntries(
    names.map((table) => {
      const columns = db.prepare(`SELECT name, "notnull" FROM pragma_table_info(?)`).all(table) as Array<{
        name: string;
        notnull: number;
      }>;
      return [table, columns.map((c) => (c.notnull ? c.name : `${c.name}?`)).sort()];
    }),
  );
}

describe("migrations and schema.prisma", () => {
  it("describe the same tables and columns", () => {
    const schema = readFileSync(path.resolve("prisma/schema.prisma"), "utf8");
    const db = new BetterSqlite3(":memory:");
    migrate(db);
    expect(tablesInDatabase(db)).toEqual(tablesInSchema(schema));
  });

  it("reads models, mapped names, optional fields and skips relations", () => {
    const schema = `
enum Status { A B }
model Graph {
  id        String   @id
  /// shown in lists
  title     String?  @map("display_title")
  status    Status
  instances Instance[]
  @@map("graphs")
}
model Instance {
  id      Int    @id @default(autoincrement())
  graphId String
  graph   Graph  @relation(fields: [graphId], references: [id]) // the owner
}
`;
    expect(tablesInSchema(schema)).toEqual({
      graphs: ["display_title?", "id", "status"],
      Instance: ["graphId", "id"],
    });
  });
});
