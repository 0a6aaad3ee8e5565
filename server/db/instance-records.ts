import type { GraphInstanceRecord, InstanceStatus } from "@/server/graph/persistence/records";
import { type Database } from "./graph-database";
import { rawStatement, statement } from "./sqlite-statements";

export interface InstanceRow {
  instance_id: string;
  version: number;
  status: InstanceStatus;
  graph_name: string;
  spec_id: string | null;
  node_id_map: string;
  attrs: string;
  created_at: number;
  updated_at: number;
}

export const INSTANCE_COLUMNS = "instance_id, version, status, graph_name, spec_id, node_id_map, attrs, created_at, updated_at";

// `+is_latest`: see the instance store (keeps the planner on the primary key).
const LATEST = `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE instance_id = ? AND +is_latest = 1`;
/** The columns of the latest row that may change, and created_at, which tells a row from a re-created one. */
const LATEST_CHANGING = `SELECT version, status, attrs, created_at, updated_at FROM graph_instances WHERE instance_id = ? AND +is_latest = 1`;

type ChangingRow = [version: number, status: InstanceStatus, attrs: string, createdAt: number, updatedAt: number];

/** The columns of a (instance, version) row that no statement changes once it is inserted. */
interface FixedParts {
  readonly graphName: string;
  readonly specId: string | null;
  /** Frozen, so every record of the version can share it. */
  readonly nodeIdMap: Readonly<Record<string, string>>;
  readonly createdAt: number;
}

/** A row's record, as is (listings: many rows read once). */
export function toRecord(row: InstanceRow): GraphInstanceRecord {
  return {
    instanceId: row.instance_id,
    version: row.version,
    graphName: row.graph_name,
    specId: row.spec_id,
    status: row.status,
    nodeIdMap: Object.freeze(JSON.parse(row.node_id_map) as Record<string, string>),
    attrs: JSON.parse(row.attrs) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Past this many versions the cache starts again: the instances a connection is running, not all it ran. */
const MAX_CACHED = 64;
/**
 * A node id map longer than this (JSON characters, ~25 nodes) is not kept: a 1,000-node graph's map is
 * a ~45 KB object, and kept maps of a few hundred 100-node runs raised the durable bench's peak RSS by
 * ~15 MiB; for such graphs, reading the map again at a status change is a small part of a run.
 */
const MAX_KEPT_MAP = 1024;

/**
 * Builds instance records from rows. The parts of a version's row that never change (graph name, spec,
 * node id map, creation time) are kept once read or written, so reading the latest record — after
 * every status change, and at every resume — fetches only status, attrs and times, as an array: the
 * full row as an object costs ~3x as much here (better-sqlite3 interns every column name of every row)
 * and its node id map a JSON.parse.
 */
export class InstanceRecords {
  private readonly fixed = new Map<string, FixedParts>();
  /** Instances a version of which was read or written: they exist (rows are never deleted). */
  private readonly seen = new Set<string>();

  constructor(private readonly db: Database) {}

  /** The record of a full row; remembers its fixed parts, for the next reads of the latest record. */
  fromRow(row: InstanceRow): GraphInstanceRecord {
    const record = toRecord(row);
    if (row.node_id_map.length > MAX_KEPT_MAP) return record;
    if (this.fixed.size >= MAX_CACHED) {
      this.fixed.clear();
      this.seen.clear();
    }
    this.seen.add(row.instance_id);
    // Its own object: the record is the caller's to change.
    const { graphName, specId, nodeIdMap, createdAt } = record;
    this.fixed.set(`${row.instance_id}@${row.version}`, { graphName, specId, nodeIdMap, createdAt });
    return record;
  }

  /** True when the instance is known to exist without a query; false when not known. */
  exists(instanceId: string): boolean {
    return this.seen.has(instanceId);
  }

  /** The record of the instance's latest version, or null when there is no such instance. */
  latest(instanceId: string): GraphInstanceRecord | null {
    const row = rawStatement(this.db, LATEST_CHANGING).get(instanceId) as ChangingRow | undefined;
    if (!row) return null;
    const [version, status, attrs, createdAt, updatedAt] = row;
    const fixed = this.fixed.get(`${instanceId}@${version}`);
    if (!fixed || fixed.createdAt !== createdAt) {
      const full = this.latestRow(instanceId);
      return full ? this.fromRow(full) : null;
    }
    return {
      instanceId,
      version,
      graphName: fixed.graphName,
      specId: fixed.specId,
      status,
      nodeIdMap: fixed.nodeIdMap,
      attrs: JSON.parse(attrs) as Record<string, unknown>,
      createdAt,
      updatedAt,
    };
  }

  /** The full latest row, for what needs more than a record (a new version copies it). */
  latestRow(instanceId: string): InstanceRow | undefined {
    return statement(this.db, LATEST).get(instanceId) as InstanceRow | undefined;
  }
}
