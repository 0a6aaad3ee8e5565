import type { Awaitable } from "@/server/graph/awaitable";
import { type Database } from "./graph-database";
import { statement } from "./sqlite-statements";

const SQL = {
  save: `INSERT OR REPLACE INTO state_snapshots (invocation_id, state) VALUES (?, ?)`,
  get: `SELECT state FROM state_snapshots WHERE invocation_id = ?`,
} as const;

/**
 * Keeps `json` as the graph state after invocation `invocationId`, in the caller's transaction (the
 * completion's: a snapshot is committed exactly when the completion that saved it is). Called only when
 * the state differs from what the instance store last wrote, so a node that leaves the state alone
 * costs nothing here.
 */
export function saveSnapshot(db: Database, invocationId: string, json: string): void {
  statement(db, SQL.save).run(invocationId, json);
}

/** The key of the state an instance started from when it was seeded (a fork): no invocation saved it. */
export const seedSnapshotKey = (instanceId: string): string => `${instanceId}.seed`;

/**
 * The graph state as of a point of a run: after an invocation that changed it, or as a fork was seeded
 * (time travel, server/services/instance-forks.ts). SQLite answers synchronously; PostgreSQL with
 * promises (server/db/pg/pg-state-snapshots.ts).
 */
export interface StateSnapshots {
  /** The state JSON saved as of `invocationId`, or null when that invocation left the state as it was. */
  get(invocationId: string): Awaitable<string | null>;
  /** The state a seeded instance (a fork) started from, or null when it was not seeded. */
  seedOf(instanceId: string): Awaitable<string | null>;
  /** Keeps the state a seeded instance starts from (replacing any kept before). */
  saveSeed(instanceId: string, json: string): Awaitable<void>;
}

/** Reads the `state_snapshots` table (see the migration `20261201800000_state_snapshots`). */
export class SqliteStateSnapshots implements StateSnapshots {
  constructor(private readonly db: Database) {}

  /** The state JSON saved as of `invocationId`, or null when that invocation left the state as it was. */
  get(invocationId: string): string | null {
    const row = statement(this.db, SQL.get).get(invocationId) as { state: string } | undefined;
    return row?.state ?? null;
  }

  seedOf(instanceId: string): string | null {
    return this.get(seedSnapshotKey(instanceId));
  }

  /** Keeps the state a seeded instance starts from (in the caller's transaction, if any). */
  saveSeed(instanceId: string, json: string): void {
    saveSnapshot(this.db, seedSnapshotKey(instanceId), json);
  }
}
