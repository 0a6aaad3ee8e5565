/** What lists show of a revision, read from its YAML once, when it is saved. */
export interface SpecListingFields {
  readonly description: string | null;
  /** Declared nodes (START and END not counted); null when the YAML did not read. */
  readonly nodeCount: number | null;
}

/** A spec revision without its YAML: what lists need. */
export interface SpecHead {
  readonly specId: string;
  readonly name: string;
  /** A display label only. */
  readonly version: string;
  /** `sha256:<hex>` of the canonical serialization (server/spec/spec-content.ts). */
  readonly contentHash: string;
  readonly createdAt: number;
  /**
   * Kept with the row at save time, so listing never parses YAML (a 20,000-node spec took seconds to
   * re-read on every list). Null for a row saved before the store kept it: read once, then stored.
   */
  readonly listing: SpecListingFields | null;
}

/** One immutable spec revision. `specId` is a Snowflake; `version` is a display label only. */
export interface SpecRecord extends SpecHead {
  readonly yaml: string;
}

/**
 * Where spec revisions live. Rows are only ever inserted (and a missing listing filled in once);
 * "latest" means the newest row of a name. Synchronous (SQLite through prepared statements, or
 * memory): spec reads sit on the run path.
 */
export interface SpecStore {
  insert(record: SpecRecord): void;
  get(specId: string): SpecRecord | null;
  latest(name: string): SpecRecord | null;
  /** `get` and `latest` without the YAML (a create reads the head; the YAML only to compile). */
  head(specId: string): SpecHead | null;
  latestHead(name: string): SpecHead | null;
  /** The latest revision of every name, by name, without YAML. */
  listLatest(): SpecHead[];
  /** Every revision of a name, newest first, without YAML. */
  history(name: string): SpecHead[];
  /** Fills in the listing of a row saved without one. */
  setListing(specId: string, listing: SpecListingFields): void;
  /** Names hidden from the list unless asked for. */
  archivedNames(): ReadonlySet<string>;
  setArchived(name: string, archived: boolean, at: number): void;
  /** Removes every revision of a name (and its archive mark); answers how many revisions went. */
  deleteName(name: string): number;
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
  head(specId: string): SpecHead | null {
    return this.get(specId);
  }
  latestHead(name: string): SpecHead | null {
    return this.latest(name);
  }
  listLatest(): SpecRecord[] {
    const names = [...new Set(this.rows.map((r) => r.name))].sort();
    return names.map((n) => this.latest(n)!);
  }
  history(name: string): SpecRecord[] {
    // Insertion order is creation order; newest first.
    return this.rows.filter((r) => r.name === name).reverse();
  }
  setListing(specId: string, listing: SpecListingFields): void {
    const i = this.rows.findIndex((r) => r.specId === specId);
    if (i >= 0) this.rows[i] = { ...this.rows[i], listing };
  }
  private readonly archived = new Set<string>();
  archivedNames(): ReadonlySet<string> {
    return this.archived;
  }
  setArchived(name: string, archived: boolean): void {
    if (archived) this.archived.add(name);
    else this.archived.delete(name);
  }
  deleteName(name: string): number {
    const before = this.rows.length;
    for (let i = this.rows.length - 1; i >= 0; i--) if (this.rows[i].name === name) this.rows.splice(i, 1);
    this.archived.delete(name);
    return before - this.rows.length;
  }
}
