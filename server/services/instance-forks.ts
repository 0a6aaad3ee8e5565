import type { StateSnapshots } from "@/server/db/state-snapshots";
import { END } from "@/server/graph/names";
import type { GraphPayload } from "@/server/graph/payload";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { ServiceError } from "./errors";
import type { EventLog } from "./event-log";
import { FORKED_FROM_ATTR, forkedFromOf, forksOf, type ForkOrigin, type ForkRef } from "./fork-lineage";
import type { ForkPlan } from "./fork-seed";
import { requireInstance, type GraphOrchestrator, type InstanceRef } from "./graph-orchestrator";
import { eventsUpTo, lastEventId, runPointOf, type PendingAtPoint, type RunPoint } from "./run-points";
import type { SpecService } from "./spec-service";
import { startedByAttrs, type StartedBy } from "./triggers/started-by";

export { FORKED_FROM_ATTR, FORKS_ATTR, forkedFromOf, forksOf, type ForkOrigin, type ForkRef } from "./fork-lineage";

/** What the API answers for a point: its state (parsed) and ledger, and whether a fork may start there. */
export interface RunPointView {
  instanceId: string;
  eventId: number;
  eventNumber: number;
  version: number;
  state: unknown;
  /** True when no node had changed the state by then: the state the run started with. */
  initial: boolean;
  asOf: RunPoint["asOf"];
  pending: PendingAtPoint[];
  running: string[];
  /** Why a fork cannot start here, or null when it can. */
  unforkable: string | null;
}

export interface ForkArgs {
  instanceId: string;
  eventId: number;
  /** The state to start from instead of the point's (validated against the spec's state schema). */
  state?: unknown;
  /** A spec revision (id) or "latest" (the newest revision of the origin's spec); default: the origin's. */
  spec?: string;
  startedBy?: StartedBy;
}

/** The snapshots a fork reads its point from and keeps its seed in (server/db/state-snapshots.ts). */
export type SnapshotStore = StateSnapshots;

/**
 * Writes a checked fork in one transaction and starts it: in this process (LocalForkStarter) or, on a
 * PostgreSQL cluster, as a job for the workers (server/cluster/cluster-fork-starter.ts).
 */
export interface ForkStarter {
  /** Resolves with the new instance once it is committed (and, in this process, started). */
  start(plan: ForkPlan): Promise<GraphInstanceRecord>;
}

export interface InstanceForksDeps {
  orchestrator: GraphOrchestrator;
  specs: SpecService;
  events: EventLog;
  /** State snapshots; without them there is no state per point, so no fork either. */
  snapshots: SnapshotStore | null;
  starter: ForkStarter;
}

/**
 * Time travel: the state and ledger at any event of a run, and forks from there. A fork is a new
 * instance (its own id and versions) seeded with that point's state (or an edited one) and open
 * delivers, started through the engine's RECOVERY bootstrap as a crash at that point would have been:
 * the nodes the delivers wait for run next. It records its origin; the origin lists its forks.
 */
export class InstanceForks {
  constructor(private readonly deps: InstanceForksDeps) {}

  /** The point after event `eventId` of the instance (its last event when absent). */
  async pointAt(instanceId: string, at?: number): Promise<RunPointView> {
    const instance = requireInstance(await this.deps.orchestrator.coordinator.instances.load(instanceId), instanceId);
    const eventId = at ?? (await lastEventId(this.deps.events, instanceId));
    const point = await this.point(instanceId, eventId);
    const graph = await this.graphOrNull(instance);
    const state = point.stateJson !== null ? JSON.parse(point.stateJson) : graph ? graph.stateSchema.parse({}) : null;
    return {
      instanceId,
      eventId,
      eventNumber: point.eventNumber,
      version: point.version,
      state,
      initial: point.initial,
      asOf: point.asOf,
      pending: point.pending,
      running: point.running,
      unforkable: unforkable(point),
    };
  }

  /** Starts a fork from the point after `eventId`; answers once the new instance is committed. */
  async fork(args: ForkArgs): Promise<InstanceRef & { forkedFrom: ForkOrigin }> {
    const { plan, forkedFrom } = await this.plan(args);
    const instance = await this.deps.starter.start(plan);
    return { instanceId: instance.instanceId, version: instance.version, status: instance.status, forkedFrom };
  }

  /** Checks a fork (the point, the revision, the state) and says what to write. */
  private async plan(args: ForkArgs): Promise<{ plan: ForkPlan; forkedFrom: ForkOrigin }> {
    const { orchestrator, specs } = this.deps;
    const origin = requireInstance(await orchestrator.coordinator.instances.load(args.instanceId), args.instanceId);
    const point = await this.point(args.instanceId, args.eventId);
    const why = unforkable(point);
    if (why) throw new ServiceError("BAD_REQUEST", why);
    if (!origin.specId) throw new ServiceError("BAD_REQUEST", `instance ${origin.instanceId} has no spec to fork`);
    const originSpec = await specs.resolve(origin.specId);
    const head = args.spec === undefined ? originSpec : await specs.resolve(args.spec === "latest" ? originSpec.name : args.spec);
    if (head.name !== originSpec.name) throw new ServiceError("BAD_REQUEST", `spec ${args.spec} is not a revision of ${originSpec.name}`);
    const { graph } = await specs.compile(head, origin.nodeIdMap);
    // The nodes left to run must exist in the revision the fork runs.
    const state = args.state !== undefined ? args.state : point.stateJson !== null ? JSON.parse(point.stateJson) : {};
    const resumeTarget = (state as { resumeTarget?: unknown } | null)?.resumeTarget;
    const needed = [...point.pending.map((p) => p.target), ...(typeof resumeTarget === "string" ? [resumeTarget] : [])];
    const missing = [...new Set(needed.filter((n) => n !== END && !graph.topology.has(n)))];
    if (missing.length > 0) {
      throw new ServiceError("BAD_REQUEST", `revision ${head.version} of ${head.name} has no node ${missing.join(", ")}, which the run had still to reach at event ${args.eventId}`);
    }
    const parsed = graph.stateSchema.safeParse(state);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message }));
      throw new ServiceError("BAD_REQUEST", `the state does not match the spec's state schema: ${issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
    }
    const input = (await orchestrator.coordinator.instances.ioRecords(origin.instanceId)).find((r) => r.version === point.version)?.input ?? null;
    const forkedFrom: ForkOrigin = {
      instanceId: origin.instanceId,
      version: point.version,
      eventId: args.eventId,
      eventNumber: point.eventNumber,
      specId: head.specId === origin.specId ? null : head.specId,
      stateEdited: args.state !== undefined,
    };
    const plan: ForkPlan = {
      graph,
      specId: head.specId,
      input: input ?? ({ content: null } as GraphPayload),
      attrs: { ...startedByAttrs(args.startedBy), [FORKED_FROM_ATTR]: forkedFrom },
      state: parsed.data,
      stateJson: JSON.stringify(parsed.data),
      pending: point.pending,
      origin,
      eventId: args.eventId,
      eventNumber: point.eventNumber,
    };
    return { plan, forkedFrom };
  }

  /** The fork's origin and the origin's forks, for the instance view. */
  lineage(instance: GraphInstanceRecord): { forkedFrom: ForkOrigin | null; forks: ForkRef[] } {
    return { forkedFrom: forkedFromOf(instance), forks: forksOf(instance) };
  }

  private async point(instanceId: string, eventId: number): Promise<RunPoint> {
    const snapshots = this.deps.snapshots;
    if (!snapshots) throw new ServiceError("BAD_REQUEST", "this store keeps no state per point of a run");
    const events = await eventsUpTo(this.deps.events, instanceId, eventId);
    return runPointOf({ instanceId, eventId, events, snapshots });
  }

  private async graphOrNull(instance: GraphInstanceRecord) {
    try {
      return await this.deps.orchestrator.graphOf(instance);
    } catch {
      return null;
    }
  }
}

function unforkable(point: RunPoint): string | null {
  if (point.ended) return `the run had reached END at event ${point.eventId}: nothing was left to run (re-invoke the instance instead)`;
  const inner = point.pending.filter((p) => p.target.includes("/"));
  if (inner.length > 0) return `at event ${point.eventId} the run was inside a subgraph (${inner[0].target}); fork from a point before or after it`;
  return null;
}
