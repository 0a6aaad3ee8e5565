import { PgCoordinator } from "@/server/db/pg/pg-coordinator";
import type { PgEngineDatabase } from "@/server/db/pg/pg-database";
import { isLeaseLost } from "./cluster-errors";

/**
 * The PostgreSQL coordinator of a worker: a write the fence refused (this worker lost the instance's
 * lease) ends the run where its last commit left it, as a lost connection does, so the engine attempts
 * no further write (no failure status, no cancellation) for an instance another worker now runs.
 * A run's state save and output are written with its status change (PgGraphInstanceStore.holdRunWrites;
 * ClusterWorker writes what a run left held when it ends).
 */
export class FencedCoordinator extends PgCoordinator {
  constructor(db: PgEngineDatabase) {
    super(db);
    this.instances.holdRunWrites();
  }

  override abandonsRun(error: unknown): boolean {
    return isLeaseLost(error) || super.abandonsRun(error);
  }
}
