import { PgCoordinator } from "@/server/db/pg/pg-coordinator";
import { isLeaseLost } from "./cluster-errors";

/**
 * The PostgreSQL coordinator of a worker: a write the fence refused (this worker lost the instance's
 * lease) ends the run where its last commit left it, as a lost connection does, so the engine attempts
 * no further write (no failure status, no cancellation) for an instance another worker now runs.
 */
export class FencedCoordinator extends PgCoordinator {
  override abandonsRun(error: unknown): boolean {
    return isLeaseLost(error) || super.abandonsRun(error);
  }
}
