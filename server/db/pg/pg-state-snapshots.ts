import { seedSnapshotKey, type StateSnapshots } from "../state-snapshots";
import type { PgQueryable } from "./pg-database";

const SQL = {
  get: `SELECT state::text AS state FROM state_snapshots WHERE invocation_id = $1`,
  save: `INSERT INTO state_snapshots (invocation_id, state) VALUES ($1, $2::json)
    ON CONFLICT (invocation_id) DO UPDATE SET state = EXCLUDED.state`,
} as const;

/**
 * The `state_snapshots` table on PostgreSQL (migration 20261202110000_app_instances). The state is a
 * JSON column, read back as the text it was written as (JSON keeps it verbatim), as SQLite's TEXT does.
 */
export class PgStateSnapshots implements StateSnapshots {
  constructor(private readonly db: PgQueryable) {}

  async get(invocationId: string): Promise<string | null> {
    const { rows } = await this.db.query<{ state: string }>({ name: "modex_snapshots_get", text: SQL.get, values: [invocationId] });
    return rows[0]?.state ?? null;
  }

  seedOf(instanceId: string): Promise<string | null> {
    return this.get(seedSnapshotKey(instanceId));
  }

  /** Keeps the state a seeded instance starts from (replacing any kept before), committed when it resolves. */
  async saveSeed(instanceId: string, json: string): Promise<void> {
    await this.db.query({ name: "modex_snapshots_save", text: SQL.save, values: [seedSnapshotKey(instanceId), json] });
  }
}
