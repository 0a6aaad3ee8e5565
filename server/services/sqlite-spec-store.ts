import { commitDeferred, statement, type Database } from "@/server/db/graph-database";
import type { SpecRecord, SpecStore } from "./spec-store";

const COLUMNS = "spec_id, name, version, yaml, content_hash, created_at";
// Snowflake ids are increasing decimal strings: ordering by (created_at, length, id) is creation order.
const NEWEST_FIRST = "ORDER BY created_at DESC, length(spec_id) DESC, spec_id DESC";

const SQL = {
  insert: `INSERT INTO graph_specs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
  get: `SELECT ${COLUMNS} FROM graph_specs WHERE spec_id = ?`,
  history: `SELECT ${COLUMNS} FROM graph_specs WHERE name = ? ${NEWEST_FIRST}`,
  latest: `SELECT ${COLUMNS} FROM graph_specs WHERE name = ? ${NEWEST_FIRST} LIMIT 1`,
  names: `SELECT DISTINCT name FROM graph_specs ORDER BY name`,
} as const;

interface SpecRow {
  spec_id: string;
  name: string;
  version: string;
  yaml: string;
  content_hash: string;
  created_at: number;
}

const toRecord = (r: SpecRow): SpecRecord => ({
  specId: r.spec_id,
  name: r.name,
  version: r.version,
  yaml: r.yaml,
  contentHash: r.content_hash,
  createdAt: Number(r.created_at),
});

/** The spec store on the `graph_specs` table. */
export class SqliteSpecStore implements SpecStore {
  constructor(private readonly db: Database) {}

  insert(r: SpecRecord): void {
    commitDeferred(this.db); // never ride along in a run's deferred steps (graph-database.ts)
    statement(this.db, SQL.insert).run(r.specId, r.name, r.version, r.yaml, r.contentHash, r.createdAt);
  }
  get(specId: string): SpecRecord | null {
    const row = statement(this.db, SQL.get).get(specId) as SpecRow | undefined;
    return row ? toRecord(row) : null;
  }
  latest(name: string): SpecRecord | null {
    const row = statement(this.db, SQL.latest).get(name) as SpecRow | undefined;
    return row ? toRecord(row) : null;
  }
  listLatest(): SpecRecord[] {
    const names = statement(this.db, SQL.names).all() as { name: string }[];
    return names.map((n) => this.latest(n.name)!);
  }
  history(name: string): SpecRecord[] {
    return (statement(this.db, SQL.history).all(name) as SpecRow[]).map(toRecord);
  }
}
