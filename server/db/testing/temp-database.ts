import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openGraphDatabase, type Database } from "../graph-database";

/**
 * A migrated SQLite file in its own temporary folder, removed on dispose (`using db = tempDatabase()`).
 * `reopen()` closes the connection and opens a new one on the same file: a process restart.
 */
export class TempDatabase implements Disposable {
  readonly dir = mkdtempSync(path.join(tmpdir(), "modex-db-"));
  readonly file = path.join(this.dir, "modex.db");
  db: Database = openGraphDatabase(this.file);

  reopen(): Database {
    this.db.close();
    this.db = openGraphDatabase(this.file);
    return this.db;
  }

  [Symbol.dispose](): void {
    if (this.db.open) this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export const tempDatabase = (): TempDatabase => new TempDatabase();
