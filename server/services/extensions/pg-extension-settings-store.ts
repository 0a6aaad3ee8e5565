import { toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { ExtensionSettingsStore } from "./extension-settings-store";

const SQL = {
  all: "SELECT name, enabled FROM extension_settings",
  upsert: `INSERT INTO extension_settings (name, enabled, updated_at) VALUES ($1, $2, $3::timestamptz)
    ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_extension_settings_${name}`, text: SQL[name], values });

/** On PostgreSQL's `extension_settings`; a toggle is committed when its promise resolves (last writer wins). */
export class PgExtensionSettingsStore implements ExtensionSettingsStore {
  constructor(private readonly db: PgQueryable) {}

  async all(): Promise<Map<string, boolean>> {
    const { rows } = await this.db.query<{ name: string; enabled: boolean }>(q("all", []));
    return new Map(rows.map((r) => [r.name, r.enabled]));
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await this.db.query(q("upsert", [name, enabled, toTimestamp(Date.now())]));
  }
}
