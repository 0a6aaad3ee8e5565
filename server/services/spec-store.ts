/** One immutable spec revision. `specId` is a Snowflake; `version` is a display label only. */
export interface SpecRecord {
  readonly specId: string;
  readonly name: string;
  readonly version: string;
  readonly yaml: string;
  /** `sha256:<hex>` of the canonical serialization (server/spec/spec-content.ts). */
  readonly contentHash: string;
  readonly createdAt: number;
}

/**
 * Where spec revisions live. Rows are only ever inserted; "latest" means the newest row of a name.
 * Synchronous (SQLite through prepared statements, or memory): spec reads sit on the run path.
 */
export interface SpecStore {
  insert(record: SpecRecord): void;
  get(specId: string): SpecRecord | null;
  latest(name: string): SpecRecord | null;
  /** The latest revision of every name, by name. */
  listLatest(): SpecRecord[];
  /** Every revision of a name, newest first. */
  history(name: string): SpecRecord[];
}

export class InMemorySpecStore implements SpecStore {
  private readonly rows: SpecRecord[] = [];

  insert(record: SpecRecord): void {
    this.rows.push(record);
  }
  get(specId: string): SpecRecord | null {
    return this.rows.find((r) => r.specId === specId) ?? null;
  }
  latest(name: string): SpecRecord | null {
    return this.history(name)[0] ?? null;
  }
  listLatest(): SpecRecord[] {
    const names = [...new Set(this.rows.map((r) => r.name))].sort();
    return names.map((n) => this.latest(n)!);
  }
  history(name: string): SpecRecord[] {
    // Insertion order is creation order; newest first.
    return this.rows.filter((r) => r.name === name).reverse();
  }
}
