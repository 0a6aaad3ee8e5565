import Database from "better-sqlite3";

/**
 * Every stored value of a SQLite database file that contains `text`, as `table.column`: what a test
 * uses to prove that a secret was written nowhere (event logs, memories, traces, any table added later).
 */
export function rowsContaining(file: string, text: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.flatMap(({ name }) =>
      (db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]).flatMap((row) =>
        Object.entries(row).flatMap(([column, value]) => (asText(value).includes(text) ? [`${name}.${column}`] : [])),
      ),
    );
  } finally {
    db.close();
  }
}

function asText(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}
