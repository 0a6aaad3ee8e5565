import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { inTransaction, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { InstanceArchive } from "./instance-archive";

const SQL = {
  isArchived: `SELECT 1 FROM archived_instances WHERE instance_id = $1`,
  archivedIds: `SELECT instance_id FROM archived_instances`,
  archive: `INSERT INTO archived_instances (instance_id, archived_at) VALUES ($1, $2::timestamptz) ON CONFLICT (instance_id) DO NOTHING`,
  unarchive: `DELETE FROM archived_instances WHERE instance_id = $1`,
  // An invocation id is `<instance id>.<snowflake>`: the instance's snapshots are a range of the key
  // ('/' follows '.'; the key compares bytewise, see the migration).
  deleteSnapshots: `DELETE FROM state_snapshots WHERE invocation_id > $1 AND invocation_id < $2`,
  deleteRows: [
    `DELETE FROM node_invocations WHERE instance_id = $1`,
    `DELETE FROM graph_instances WHERE instance_id = $1`,
    `DELETE FROM graph_io_records WHERE instance_id = $1`,
    `DELETE FROM deliver_rows WHERE instance_id = $1`,
    `DELETE FROM engine_events WHERE instance_id = $1`,
    `DELETE FROM archived_instances WHERE instance_id = $1`,
    // A cluster's lease of it (a worker that still fetches a job for it finds no instance and drops
    // the lease it took, see ClusterWorker); its pending jobs are the cluster's (ClusterControl.forgetIn).
    `DELETE FROM cluster_leases WHERE instance_id = $1`,
    // Its agent nodes' conversations, traces, approvals and suspended turns (session `<instance id>:<node>`).
    `DELETE FROM agent_node_memory WHERE instance_id = $1`,
    // token_budget's total of the run (its scope is the instance id).
    `DELETE FROM token_budget_totals WHERE scope = $1`,
    ...["agent_spans", "agent_approvals", "agent_turn_snapshots"].map((table) => `DELETE FROM ${table} WHERE left(session_id, length($1::text) + 1) = $1::text || ':'`),
  ],
} as const;

/**
 * Archive marks and deletion on PostgreSQL (see InstanceArchive). Marking is idempotent under
 * concurrency (ON CONFLICT); deleting is one transaction, committed when it resolves, or part of the
 * caller's when it runs inside a PgAppDatabase transaction (ClusterGraphControl's).
 */
export class PgInstanceArchive implements InstanceArchive {
  constructor(private readonly db: PgQueryable) {}

  async isArchived(instanceId: string): Promise<boolean> {
    const { rowCount } = await this.db.query({ name: "modex_archive_is", text: SQL.isArchived, values: [instanceId] });
    return (rowCount ?? 0) > 0;
  }

  async archivedIds(): Promise<ReadonlySet<string>> {
    const { rows } = await this.db.query<{ instance_id: string }>({ name: "modex_archive_ids", text: SQL.archivedIds });
    return new Set(rows.map((r) => r.instance_id));
  }

  async setArchived(instanceId: string, archived: boolean, at: number): Promise<void> {
    if (archived) await this.db.query({ name: "modex_archive_set", text: SQL.archive, values: [instanceId, toTimestamp(at)] });
    else await this.db.query({ name: "modex_archive_unset", text: SQL.unarchive, values: [instanceId] });
  }

  async delete(instanceId: string): Promise<void> {
    const db = this.db;
    const transaction = db instanceof PgAppDatabase ? db.transaction.bind(db) : <T>(fn: (tx: PgQueryable) => Promise<T>) => inTransaction(db, fn);
    await transaction(async (tx) => {
      await tx.query({ text: SQL.deleteSnapshots, values: [`${instanceId}.`, `${instanceId}/`] });
      for (const text of SQL.deleteRows) await tx.query({ text, values: [instanceId] });
    });
  }
}
