import type { InstanceRef } from "./graph-orchestrator";
import type { ClaimKey } from "./idempotency-service";
import type { StartedBy } from "./triggers/started-by";

/** Admits a deferred run: resolves when it may start, with the function to call once it has ended. */
export type RunSlot = () => Promise<() => void>;

/** What a create asks for: a spec (name → latest revision, or a spec id), its input, who started it. */
export interface LaunchRequest {
  spec: string;
  input?: unknown;
  startedBy?: StartedBy;
  breakpoints?: readonly string[];
  /** When the run may start (the REST route's turn gate); the answer then waits only for the instance's commit. */
  startAfter?: RunSlot;
}

/**
 * Creates instances and answers once each is committed. GraphOrchestrator creates and runs them in this
 * process; ClusterLauncher (server/cluster) commits them with a job for the workers of a PostgreSQL
 * cluster. `claim` commits the Idempotency-Key with the instance.
 */
export interface InstanceLauncher {
  create(args: LaunchRequest & { claim?: ClaimKey }): Promise<InstanceRef>;
}
