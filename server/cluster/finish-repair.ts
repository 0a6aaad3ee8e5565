import type { PgQueryable } from "@/server/db/pg/pg-database";

/**
 * Stores the `run_finished` event of an instance's latest version if its worker died between the final
 * status commit and storing the run's last events (the sweeper finds such an instance by its lease,
 * never released). `iterations` is counted from the ledger (the version's completed invocations).
 * Runs on a fenced connection of the worker that now holds the lease, in one statement, so it happens
 * once.
 */
const REPAIR_SQL = `INSERT INTO engine_events (instance_id, version, type, payload, created_at)
  SELECT g.instance_id, g.version, 'run_finished',
    json_build_object('type', 'run_finished', 'instanceId', g.instance_id, 'version', g.version,
      'reachedEnd', g.status = 'completed',
      'iterations', (SELECT count(*) FROM node_invocations n WHERE n.instance_id = g.instance_id AND n.status = 'COMPLETED'),
      'repaired', true),
    now()
  FROM graph_instances g
  WHERE g.instance_id = $1 AND g.is_latest AND g.status IN ('completed', 'failed')
    AND NOT EXISTS (SELECT 1 FROM engine_events e WHERE e.instance_id = g.instance_id AND e.version = g.version AND e.type = 'run_finished')
  RETURNING id`;

/** True when it stored the missing event. */
export async function repairRunFinished(db: PgQueryable, instanceId: string): Promise<boolean> {
  const { rows } = await db.query({ name: "modex_cluster_finish_repair", text: REPAIR_SQL, values: [instanceId] });
  return rows.length > 0;
}
