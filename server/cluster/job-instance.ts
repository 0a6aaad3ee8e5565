import { graphPayload, type GraphPayload } from "@/server/graph/payload";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { PgQueryable } from "@/server/db/pg/pg-database";
import { INSTANCE_COLUMNS, toInstanceRecord, type InstanceRow } from "@/server/db/pg/pg-instance-store";

/**
 * The latest version, whether a run of it started (a node invocation exists; only asked of a running
 * instance) and the input of that version (else of the last version that has one, as `inputOf`).
 */
const SQL = `SELECT ${INSTANCE_COLUMNS},
    status = 'running' AND EXISTS (SELECT 1 FROM node_invocations n WHERE n.instance_id = g.instance_id) AS started,
    (SELECT io.input FROM graph_io_records io WHERE io.instance_id = g.instance_id
      ORDER BY io.version = g.version DESC, io.version DESC LIMIT 1) AS input
  FROM graph_instances g WHERE g.instance_id = $1 AND g.is_latest`;

/** What a worker holding an instance's lease reads of it to plan and start a job's run. */
export interface JobInstance {
  record: GraphInstanceRecord;
  /** A node invocation of the instance exists (a run of it has started); false unless it is running. */
  started: boolean;
  /** The input of its current version: what a run given none starts with (InstanceRun's `inputOf`). */
  input: GraphPayload;
}

/**
 * Reads what planning a job needs (job-plan.ts) in one statement, instead of the instance, then
 * whether it started, then its inputs. Null when the instance does not exist (it was deleted).
 */
export async function loadJobInstance(db: PgQueryable, instanceId: string): Promise<JobInstance | null> {
  const { rows } = await db.query<InstanceRow & { started: boolean; input: GraphPayload | null }>({
    name: "modex_cluster_job_instance",
    text: SQL,
    values: [instanceId],
  });
  if (rows.length === 0) return null;
  const { started, input, ...row } = rows[0];
  return { record: toInstanceRecord(row), started, input: input ?? graphPayload({ content: null }) };
}
