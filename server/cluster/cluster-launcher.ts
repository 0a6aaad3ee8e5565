import type { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { PgGraphInstanceStore } from "@/server/db/pg/pg-instance-store";
import { isPgStorageError } from "@/server/db/pg/pg-database";
import { BREAKPOINTS_ATTR, checkBreakpoints } from "@/server/services/breakpoints";
import { ServiceError, toServiceError } from "@/server/services/errors";
import type { InstanceRef } from "@/server/services/graph-orchestrator";
import type { ClaimKey } from "@/server/services/idempotency-service";
import type { InstanceLauncher, LaunchRequest } from "@/server/services/instance-launcher";
import type { SpecService } from "@/server/services/spec-service";
import { startedByAttrs } from "@/server/services/triggers/started-by";
import type { ClusterControl } from "./cluster-control";
import { appendEvent } from "./cluster-graph-control";
import { toPayload } from "./job-plan";

export interface ClusterLauncherOptions {
  db: PgAppDatabase;
  cluster: ClusterControl;
  specs: SpecService;
}

/**
 * Creates instances for the workers of a PostgreSQL cluster: the instance (RUNNING, not started), its
 * spec revision, who started it and its breakpoints, the claim of its Idempotency-Key, its first event
 * and its `run` job commit in one transaction, and the answer waits for that commit. A worker takes the
 * job and runs it under its lease.
 */
export class ClusterLauncher implements InstanceLauncher {
  constructor(private readonly options: ClusterLauncherOptions) {}

  async create(args: LaunchRequest & { claim?: ClaimKey }): Promise<InstanceRef> {
    const head = await this.options.specs.resolve(args.spec);
    const { graph } = await this.options.specs.compile(head);
    const breakpoints = args.breakpoints?.length ? checkBreakpoints(graph.nodeIdMap, args.breakpoints) : null;
    const input = toPayload(args.input);
    try {
      const instance = await this.options.db.transaction(async (tx) => {
        const store = new PgGraphInstanceStore({ acks: tx, steps: tx });
        const made = await store.create({
          graphName: graph.name,
          specId: head.specId,
          nodeIdMap: graph.nodeIdMap,
          input,
          attrs: { ...startedByAttrs(args.startedBy), ...(breakpoints ? { [BREAKPOINTS_ATTR]: breakpoints } : {}) },
        });
        await args.claim?.(made.instanceId);
        await appendEvent(tx, made, { type: "instance_status", instanceId: made.instanceId, version: made.version, from: null, to: "running" });
        await this.options.cluster.dueIn(tx, { kind: "run", instanceId: made.instanceId });
        return made;
      });
      return { instanceId: instance.instanceId, version: instance.version, status: instance.status };
    } catch (error) {
      if (isPgStorageError(error)) throw new ServiceError("STORAGE_UNAVAILABLE", `PostgreSQL refused the write: ${(error as Error).message}`);
      throw toServiceError(error);
    }
  }
}
