import type { Awaitable } from "@/server/graph/awaitable";

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
/** A name's latest revision as the list shows it, with how many revisions the name has. */
export interface LatestSpecHead extends SpecHead {
  readonly revisions: number;
}

export interface SpecRecord extends SpecHead {
  readonly yaml: string;
}

/** What `saveIfChanged` did: inserted the record, or found the name's latest revision with its content. */
export interface SpecSaveOutcome {
  /** The inserted revision (`created`), or the latest one of the name, which has the same content. */
  readonly head: SpecHead;
  readonly created: boolean;
}

/**
 * Where spec revisions live. Rows are only ever inserted (and a missing listing filled in once);
 * "latest" means the newest row of a name. Methods answer synchronously in memory and on SQLite
 * (spec reads sit on the run path, and a synchronous answer costs no microtask) and with promises on
 * PostgreSQL: callers `await` them, or `chain` where a microtask matters.
 */
export interface SpecStore {
  insert(record: SpecRecord): Awaitable<void>;
  /**
   * Inserts `record` unless the latest revision of its name has its content hash, atomically: two
   * processes saving the same YAML insert it once, and two saving different YAML of one name at once
   * both insert theirs, the later one becoming the latest.
   */
  saveIfChanged(record: SpecRecord): Awaitable<SpecSaveOutcome>;
  get(specId: string): Awaitable<SpecRecord | null>;
  latest(name: string): Awaitable<SpecRecord | null>;
  /** `get` and `latest` without the YAML (a create reads the head; the YAML only to compile). */
  head(specId: string): Awaitable<SpecHead | null>;
  latestHead(name: string): Awaitable<SpecHead | null>;
  /** The latest revision of every name, by name, without YAML. */
  listLatest(): Awaitable<LatestSpecHead[]>;
  /** Every revision of a name, newest first, without YAML. */
  history(name: string): Awaitable<SpecHead[]>;
  /** Fills in the listing of a row saved without one. */
  setListing(specId: string, listing: SpecListingFields): Awaitable<void>;
  /** Names hidden from the list unless asked for. */
  archivedNames(): Awaitable<ReadonlySet<string>>;
  setArchived(name: string, archived: boolean, at: number): Awaitable<void>;
  /** Removes every revision of a name (and its archive mark); answers how many revisions went. */
  deleteName(name: string): Awaitable<number>;
}

/**
 * `record`, dated just after `latest` when made no later (another process's clock, or a save that
 * waited for another): what `saveIfChanged` inserts, so that the later save is the latest revision.
 */
export function datedAfter(record: SpecRecord, latest: SpecHead | null): SpecRecord {
  return latest && latest.createdAt >= record.createdAt ? { ...record, createdAt: latest.createdAt + 1 } : record;
}

/** Newest first: by time, then by Snowflake id (increasing decimal strings) within a millisecond. */
function newestFirst(a: SpecHead, b: SpecHead): number {
  return b.createdAt - a.createdAt || b.specId.length - a.specId.length || (b.specId < a.specId ? -1 : b.specId > a.specId ? 1 : 0);
}

export class InMemorySpecStore implements SpecStore {
  private readonly rows: SpecRecord[] = [];

  insert(record: SpecRecord): void {
    this.rows.push(record);
  }
  saveIfChanged(record: SpecRecord): SpecSaveOutcome {
    const latest = this.latestHead(record.name);
    if (latest && latest.contentHash === record.contentHash) return { head: latest, created: false };
    const dated = datedAfter(record, latest);
    this.insert(dated);
    return { head: dated, created: true };
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
  listLatest(): (SpecRecord & LatestSpecHead)[] {
    const names = [...new Set(this.rows.map((r) => r.name))].sort(); // code point order, as SQLite's
    return names.map((n) => {
      const revisions = this.history(n);
      return { ...revisions[0], revisions: revisions.length };
    });
  }
  history(name: string): SpecRecord[] {
    return this.rows.filter((r) => r.name === name).sort(newestFirst);
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
