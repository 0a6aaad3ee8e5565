import { fromTimestamp, inTransaction, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import { datedAfter, type LatestSpecHead, type SpecHead, type SpecListingFields, type SpecRecord, type SpecSaveOutcome, type SpecStore } from "./spec-store";

/** As on SQLite (sqlite-spec-store.ts): rows written by an older listing are re-read once. */
const LISTING_VERSION = 1;

const HEAD = "spec_id, name, version, content_hash, created_at, description, node_count, listing_version";
const COLUMNS = `${HEAD}, yaml`;
// Snowflake ids are increasing decimal strings: ordering by (created_at, length, id) is creation order.
const NEWEST_FIRST = "created_at DESC, length(spec_id) DESC, spec_id DESC";

const SQL = {
  insert: `INSERT INTO graph_specs (${COLUMNS}) VALUES ($1, $2, $3, $4, $5::timestamptz, $6, $7, $8, $9)`,
  // Saves of one name wait for each other (until commit): the latest a save compares with is final.
  lockName: `SELECT pg_advisory_xact_lock(hashtextextended('graph_specs:' || $1, 0))`,
  get: `SELECT ${COLUMNS} FROM graph_specs WHERE spec_id = $1`,
  head: `SELECT ${HEAD} FROM graph_specs WHERE spec_id = $1`,
  latestHead: `SELECT ${HEAD} FROM graph_specs WHERE name = $1 ORDER BY ${NEWEST_FIRST} LIMIT 1`,
  latest: `SELECT ${COLUMNS} FROM graph_specs WHERE name = $1 ORDER BY ${NEWEST_FIRST} LIMIT 1`,
  history: `SELECT ${HEAD} FROM graph_specs WHERE name = $1 ORDER BY ${NEWEST_FIRST}`,
  listLatest: `SELECT DISTINCT ON (name) ${HEAD}, count(*) OVER (PARTITION BY name)::int AS revisions
    FROM graph_specs ORDER BY name, ${NEWEST_FIRST}`,
  setListing: `UPDATE graph_specs SET description = $1, node_count = $2, listing_version = ${LISTING_VERSION} WHERE spec_id = $3`,
  archivedNames: `SELECT name FROM archived_specs`,
  archive: `INSERT INTO archived_specs (name, archived_at) VALUES ($1, $2::timestamptz) ON CONFLICT (name) DO NOTHING`,
  unarchive: `DELETE FROM archived_specs WHERE name = $1`,
  // One statement: the revisions and the archive mark go together.
  deleteName: `WITH mark AS (DELETE FROM archived_specs WHERE name = $1) DELETE FROM graph_specs WHERE name = $1`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_spec_${name}`, text: SQL[name], values });

interface HeadRow {
  spec_id: string;
  name: string;
  version: string;
  content_hash: string;
  created_at: Date;
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
  createdAt: fromTimestamp(r.created_at)!,
  listing: r.listing_version >= LISTING_VERSION ? { description: r.description, nodeCount: r.node_count } : null,
});

const toRecord = (r: SpecRow): SpecRecord => ({ ...toHead(r), yaml: r.yaml });

/**
 * The spec store on PostgreSQL's `graph_specs` and `archived_specs`, shared by every web and worker
 * process of a cluster. `db` commits synchronously (an acknowledged save is on disk): the engine's
 * `acks` pool, or any pool on the database.
 */
export class PgSpecStore implements SpecStore {
  constructor(private readonly db: PgQueryable) {}

  async insert(r: SpecRecord): Promise<void> {
    await this.db.query(insertOf(r));
  }

  /** Under a lock on the name (held to commit): the latest revision compared with is the one the insert follows. */
  async saveIfChanged(r: SpecRecord): Promise<SpecSaveOutcome> {
    return inTransaction(this.db, async (tx) => {
      await tx.query(q("lockName", [r.name]));
      const { rows } = await tx.query<HeadRow>(q("latestHead", [r.name]));
      const latest = rows[0] ? toHead(rows[0]) : null;
      if (latest && latest.contentHash === r.contentHash) return { head: latest, created: false };
      const record = datedAfter(r, latest);
      await tx.query(insertOf(record));
      return { head: record, created: true };
    });
  }

  async get(specId: string): Promise<SpecRecord | null> {
    const { rows } = await this.db.query<SpecRow>(q("get", [specId]));
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async latest(name: string): Promise<SpecRecord | null> {
    const { rows } = await this.db.query<SpecRow>(q("latest", [name]));
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async head(specId: string): Promise<SpecHead | null> {
    const { rows } = await this.db.query<HeadRow>(q("head", [specId]));
    return rows[0] ? toHead(rows[0]) : null;
  }

  async latestHead(name: string): Promise<SpecHead | null> {
    const { rows } = await this.db.query<HeadRow>(q("latestHead", [name]));
    return rows[0] ? toHead(rows[0]) : null;
  }

  async listLatest(): Promise<LatestSpecHead[]> {
    const { rows } = await this.db.query<HeadRow & { revisions: number }>(q("listLatest", []));
    // DISTINCT ON orders by name in the database's collation; SQLite and memory order by code point.
    return rows.map((r) => ({ ...toHead(r), revisions: r.revisions })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async history(name: string): Promise<SpecHead[]> {
    const { rows } = await this.db.query<HeadRow>(q("history", [name]));
    return rows.map(toHead);
  }

  async setListing(specId: string, listing: SpecListingFields): Promise<void> {
    await this.db.query(q("setListing", [listing.description, listing.nodeCount, specId]));
  }

  async archivedNames(): Promise<ReadonlySet<string>> {
    const { rows } = await this.db.query<{ name: string }>(q("archivedNames", []));
    return new Set(rows.map((r) => r.name));
  }

  async setArchived(name: string, archived: boolean, at: number): Promise<void> {
    if (archived) await this.db.query(q("archive", [name, toTimestamp(at)]));
    else await this.db.query(q("unarchive", [name]));
  }

  async deleteName(name: string): Promise<number> {
    const { rowCount } = await this.db.query(q("deleteName", [name]));
    return rowCount ?? 0;
  }
}

function insertOf(r: SpecRecord) {
  const { description = null, nodeCount = null } = r.listing ?? {};
  return q("insert", [r.specId, r.name, r.version, r.contentHash, toTimestamp(r.createdAt), description, nodeCount, r.listing ? LISTING_VERSION : 0, r.yaml]);
}
