import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import type { Awaitable } from "@/server/graph/awaitable";

/**
 * Archiving and deleting instances, in storage. Archiving only marks the id (its rows stay as they
 * are, a later version stays archived); deleting removes every row the instance owns: its versions,
 * inputs and outputs, invocations, deliver ledger, event log, archive mark, its agent nodes' memory,
 * traces, approvals and suspended turns, and token_budget's total of it. Callers check first that
 * no run of it is in flight (GraphControlService.delete).
 */
export interface InstanceArchive {
  isArchived(instanceId: string): Awaitable<boolean>;
  /** Every archived id (in-memory listings only). */
  archivedIds(): Awaitable<ReadonlySet<string>>;
  /** Archiving an archived id, or bringing back one that is not, changes nothing. */
  setArchived(instanceId: string, archived: boolean, at: number): Awaitable<void>;
  /**
   * Removes the instance's rows, all or none. SQLite's is synchronous, so a caller can run it inside
   * its own transaction; a network database's is one transaction of its own, committed when it resolves.
   */
  delete(instanceId: string): Awaitable<void>;
}

const SQL = {
  isArchived: `SELECT 1 FROM archived_instances WHERE instance_id = ?`,
  archive: `INSERT OR IGNORE INTO archived_instances (instance_id, archived_at) VALUES (?, ?)`,
  unarchive: `DELETE FROM archived_instances WHERE instance_id = ?`,
  // An invocation id is `<instance id>.<snowflake>`: the instance's rows are a range of the key ('/' follows '.').
  deleteInvocations: `DELETE FROM node_invocations WHERE invocation_id > ? AND invocation_id < ? AND instance_id = ?`,
  deleteSnapshots: `DELETE FROM state_snapshots WHERE invocation_id > ? AND invocation_id < ?`,
  deleteRows: [
    `DELETE FROM graph_instances WHERE instance_id = ?`,
    `DELETE FROM graph_io_records WHERE instance_id = ?`,
    `DELETE FROM deliver_rows WHERE instance_id = ?`,
    `DELETE FROM engine_events WHERE instance_id = ?`,
    `DELETE FROM archived_instances WHERE instance_id = ?`,
    // Not indexed by id: a scan of the search table, which deleting (rare) can afford.
    `DELETE FROM instance_search WHERE instance_id = ?`,
    // Its agent nodes' conversations, and (their session is `<instance id>:<node>`) their traces, approvals
    // and suspended turns: what a person wrote into the run lives there too.
    `DELETE FROM agent_node_memory WHERE instance_id = ?`,
    // token_budget's total of the run (its scope is the instance id): a deleted run's total would stay forever.
    `DELETE FROM token_budget_totals WHERE scope = ?`,
  ],
  // ...and the ones keyed by session, `<instance id>:<node>`: a range of the key (';' follows ':').
  deleteAgentSessions: ["agent_spans", "agent_approvals", "agent_turn_snapshots"].map((table) => `DELETE FROM ${table} WHERE session_id > ? AND session_id < ?`),
} as const;

export function sqliteInstanceArchive(db: Database): InstanceArchive {
  return {
    isArchived: (id) => statement(db, SQL.isArchived).get(id) !== undefined,
    archivedIds: () => new Set(statement(db, `SELECT instance_id AS id FROM archived_instances`).all().map((r) => (r as { id: string }).id)),
    setArchived(id, archived, at) {
      if (archived) statement(db, SQL.archive).run(id, at);
      else statement(db, SQL.unarchive).run(id);
    },
    delete(id) {
      statement(db, SQL.deleteInvocations).run(`${id}.`, `${id}/`, id);
      statement(db, SQL.deleteSnapshots).run(`${id}.`, `${id}/`);
      for (const sql of SQL.deleteRows) statement(db, sql).run(id);
      for (const sql of SQL.deleteAgentSessions) statement(db, sql).run(`${id}:`, `${id};`);
    },
  };
}

/**
 * In-memory stores (unit tests) keep the archive marks; they have no way to remove an instance's rows,
 * so deleting is refused there.
 */
export function memoryInstanceArchive(): InstanceArchive {
  const ids = new Set<string>();
  return {
    isArchived: (id) => ids.has(id),
    archivedIds: () => ids,
    setArchived: (id, archived) => void (archived ? ids.add(id) : ids.delete(id)),
    delete() {
      throw new Error("deleting an instance needs the SQLite stores");
    },
  };
}
