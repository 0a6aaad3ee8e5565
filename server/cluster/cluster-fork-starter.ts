import type { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { isPgStorageError } from "@/server/db/pg/pg-database";
import { PgDeliverStore } from "@/server/db/pg/pg-deliver-store";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { PgStateSnapshots } from "@/server/db/pg/pg-state-snapshots";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { ServiceError, toServiceError } from "@/server/services/errors";
import { seedFork, type ForkPlan } from "@/server/services/fork-seed";
import type { ForkStarter } from "@/server/services/instance-forks";
import type { ClusterControl } from "./cluster-control";
import { appendEvent } from "./cluster-graph-control";

/**
 * Locks the origin's latest row for the fork's transaction: a concurrent fork of the same origin waits,
 * then reads the forks list this one wrote, so neither entry is lost.
 */
const LOCK_ORIGIN_SQL = `SELECT 1 FROM graph_instances WHERE instance_id = $1 AND is_latest FOR UPDATE`;

export interface ClusterForkStarterOptions {
  db: PgAppDatabase;
  cluster: ClusterControl;
}

/**
 * Forks on a PostgreSQL cluster: the fork (seedFork: the instance, its state and seed snapshot, its
 * seeded PENDING delivers, the origin's forks list), its first events and its `run` job commit in one
 * transaction, and the answer waits for that commit. A worker takes the job and, the instance being
 * seeded (job-plan.ts), starts it by RECOVERY from that ledger, as the single process does.
 */
export class ClusterForkStarter implements ForkStarter {
  constructor(private readonly options: ClusterForkStarterOptions) {}

  async start(plan: ForkPlan): Promise<GraphInstanceRecord> {
    try {
      return await this.options.db.transaction(async (tx) => {
        const bound = { acks: tx, steps: tx };
        await tx.query({ text: LOCK_ORIGIN_SQL, values: [plan.origin.instanceId] });
        const stores = { instances: new PgGraphInstanceStore(bound), delivers: new PgDeliverStore(bound), snapshots: new PgStateSnapshots(tx) };
        const { instance, events } = await seedFork(stores, plan);
        for (const event of events) await appendEvent(tx, instance, event);
        await this.options.cluster.dueIn(tx, { kind: "run", instanceId: instance.instanceId });
        return instance;
      });
    } catch (error) {
      if (isPgStorageError(error)) throw new ServiceError("STORAGE_UNAVAILABLE", `PostgreSQL refused the write: ${(error as Error).message}`);
      throw toServiceError(error);
    }
  }
}
