import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import { commitDeferred } from "@/server/db/deferred-transaction";
import { datedAfter, type LatestSpecHead, type SpecHead, type SpecListingFields, type SpecRecord, type SpecSaveOutcome, type SpecStore } from "./spec-store";

/** Bump when the listing gains a field: rows written by an older version are re-read once. */
const LISTING_VERSION = 1;

const HEAD = "spec_id, name, version, content_hash, created_at, description, node_count, listing_version";
const COLUMNS = `${HEAD}, yaml`;
// Snowflake ids are increasing decimal strings: ordering by (created_at, length, id) is creation order.
const NEWEST_FIRST = "ORDER BY created_at DESC, length(spec_id) DESC, spec_id DESC";

const SQL = {
  insert: `INSERT INTO graph_specs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  get: `SELECT ${COLUMNS} FROM graph_specs WHERE spec_id = ?`,
  head: `SELECT ${HEAD} FROM graph_specs WHERE spec_id = ?`,
  latestHead: `SELECT ${HEAD} FROM graph_specs WHERE name = ? ${NEWEST_FIRST} LIMIT 1`,
  history: `SELECT ${HEAD} FROM graph_specs WHERE name = ? ${NEWEST_FIRST}`,
  latest: `SELECT ${COLUMNS} FROM graph_specs WHERE name = ? ${NEWEST_FIRST} LIMIT 1`,
  // One statement, no YAML read: the listing columns are what the list shows.
  listLatest: `SELECT ${HEAD}, revisions FROM (
      SELECT ${HEAD}, row_number() OVER (PARTITION BY name ${NEWEST_FIRST}) AS rank,
        count(*) OVER (PARTITION BY name) AS revisions FROM graph_specs
    ) WHERE rank = 1 ORDER BY name`,
  setListing: `UPDATE graph_specs SET description = ?, node_count = ?, listing_version = ${LISTING_VERSION} WHERE spec_id = ?`,
  archivedNames: `SELECT name FROM archived_specs`,
  archive: `INSERT OR IGNORE INTO archived_specs (name, archived_at) VALUES (?, ?)`,
  unarchive: `DELETE FROM archived_specs WHERE name = ?`,
  deleteName: `DELETE FROM graph_specs WHERE name = ?`,
} as const;

interface HeadRow {
  spec_id: string;
  name: string;
  version: string;
  content_hash: string;
  created_at: number;
  description: string | null;
  node_count: number | null;
  listing_version: number;
}

interface SpecRow extends HeadRow {
  yaml: string;
}

const toHead = (r: HeadRow): SpecHead => ({
  specId: r.spec_id,
  name: r.name,
  version: r.version,
  contentHash: r.content_hash,
  createdAt: Number(r.created_at),
  listing: r.listing_version >= LISTING_VERSION ? { description: r.description, nodeCount: r.node_count === null ? null : Number(r.node_count) } : null,
});

const toRecord = (r: SpecRow): SpecRecord => ({ ...toHead(r), yaml: r.yaml });

/** The spec store on the `graph_specs` table. */
export class SqliteSpecStore implements SpecStore {
  constructor(private readonly db: Database) {}

  insert(r: SpecRecord): void {
    commitDeferred(this.db); // never ride along in a run's deferred steps (graph-database.ts)
    this.write(r);
  }

  saveIfChanged(r: SpecRecord): SpecSaveOutcome {
    commitDeferred(this.db);
    // IMMEDIATE: the read and the insert hold the write lock together, also against another process.
    return this.db
      .transaction((): SpecSaveOutcome => {
        const latest = this.latestHead(r.name);
        if (latest && latest.contentHash === r.contentHash) return { head: latest, created: false };
        const dated = datedAfter(r, latest);
        this.write(dated);
        return { head: dated, created: true };
      })
      .immediate();
  }

  private write(r: SpecRecord): void {
    const { description = null, nodeCount = null } = r.listing ?? {};
    statement(this.db, SQL.insert).run(r.specId, r.name, r.version, r.contentHash, r.createdAt, description, nodeCount, r.listing ? LISTING_VERSION : 0, r.yaml);
  }
  get(specId: string): SpecRecord | null {
    const row = statement(this.db, SQL.get).get(specId) as SpecRow | undefined;
    return row ? toRecord(row) : null;
  }
  latest(name: string): SpecRecord | null {
    const row = statement(this.db, SQL.latest).get(name) as SpecRow | undefined;
    return row ? toRecord(row) : null;
  }
  head(specId: string): SpecHead | null {
    const row = statement(this.db, SQL.head).get(specId) as HeadRow | undefined;
    return row ? toHead(row) : null;
  }
  latestHead(name: string): SpecHead | null {
    const row = statement(this.db, SQL.latestHead).get(name) as HeadRow | undefined;
    return row ? toHead(row) : null;
  }
  listLatest(): LatestSpecHead[] {
    return (statement(this.db, SQL.listLatest).all() as (HeadRow & { revisions: number })[]).map((r) => ({ ...toHead(r), revisions: Number(r.revisions) }));
  }
  history(name: string): SpecHead[] {
    return (statement(this.db, SQL.history).all(name) as HeadRow[]).map(toHead);
  }
  setListing(specId: string, listing: SpecListingFields): void {
    commitDeferred(this.db);
    statement(this.db, SQL.setListing).run(listing.description, listing.nodeCount, specId);
  }

  archivedNames(): ReadonlySet<string> {
    return new Set(statement(this.db, SQL.archivedNames).all().map((r) => (r as { name: string }).name));
  }

  setArchived(name: string, archived: boolean, at: number): void {
    commitDeferred(this.db);
    if (archived) statement(this.db, SQL.archive).run(name, at);
    else statement(this.db, SQL.unarchive).run(name);
  }

  deleteName(name: string): number {
    commitDeferred(this.db);
    return this.db.transaction(() => {
      statement(this.db, SQL.unarchive).run(name);
      return statement(this.db, SQL.deleteName).run(name).changes;
    })();
  }
}
