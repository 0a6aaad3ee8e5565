import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import { commitWith } from "@/server/db/deferred-transaction";
import type { Awaitable } from "@/server/graph/awaitable";

/**
 * Whether each extension is on, as a person last set it (the Extensions page); kept across restarts.
 * In-memory and SQLite answer synchronously, PostgreSQL with promises.
 */
export interface ExtensionSettingsStore {
  all(): Awaitable<Map<string, boolean>>;
  /** Committed when it has answered. */
  setEnabled(name: string, enabled: boolean): Awaitable<void>;
}

export class InMemoryExtensionSettingsStore implements ExtensionSettingsStore {
  private readonly rows = new Map<string, boolean>();
  all(): Map<string, boolean> {
    return new Map(this.rows);
  }
  setEnabled(name: string, enabled: boolean): void {
    this.rows.set(name, enabled);
  }
}

const SQL = {
  all: "SELECT name, enabled FROM extension_settings",
  upsert: "INSERT INTO extension_settings (name, enabled, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
} as const;

/** On the `extension_settings` table; a toggle commits before the caller answers (commitWith). */
export class SqliteExtensionSettingsStore implements ExtensionSettingsStore {
  constructor(private readonly db: Database) {}

  all(): Map<string, boolean> {
    const rows = statement(this.db, SQL.all).all() as { name: string; enabled: number }[];
    return new Map(rows.map((r) => [r.name, r.enabled === 1]));
  }

  setEnabled(name: string, enabled: boolean): void {
    commitWith(this.db, () => statement(this.db, SQL.upsert).run(name, enabled ? 1 : 0, Date.now()), { oneWrite: true });
  }
}
