import type { StateSnapshots } from "@/server/db/state-snapshots";
import { isPromise } from "@/server/graph/awaitable";
import { newSnowflake } from "@/server/graph/ids";
import { END } from "@/server/graph/names";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { Durability } from "./durability";
import { ServiceError } from "./errors";
import type { EventLog } from "./event-log";
import type { EventRecorder } from "./event-recorder";
import { ownershipAttrs, type ExecutorIdentity } from "./executor-identity";
import { EXTERNAL_SOURCE } from "./graph-control-service";
import { requireInstance, type GraphOrchestrator, type InstanceRef } from "./graph-orchestrator";
import { eventsUpTo, lastEventId, runPointOf, type PendingAtPoint, type RunPoint } from "./run-points";
import type { SpecService } from "./spec-service";
import { startedByAttrs, type StartedBy } from "./triggers/started-by";

/** Where a fork came from: kept in its attrs. */
export interface ForkOrigin {
  instanceId: string;
  version: number;
  eventId: number;
  /** The event's number within the origin's log (the timeline's numbering). */
  eventNumber: number;
  /** The spec revision the fork runs, when it is not the origin's. */
  specId: string | null;
  stateEdited: boolean;
}

/** A fork, as its origin lists it (in the origin's attrs). */
export interface ForkRef {
  instanceId: string;
  eventId: number;
  eventNumber: number;
  at: number;
}

export const FORKED_FROM_ATTR = "forked_from";
export const FORKS_ATTR = "forks";

export function forkedFromOf(instance: Pick<GraphInstanceRecord, "attrs">): ForkOrigin | null {
  const v = instance.attrs[FORKED_FROM_ATTR] as ForkOrigin | undefined;
  return v && typeof v === "object" && typeof v.instanceId === "string" ? v : null;
}

export function forksOf(instance: Pick<GraphInstanceRecord, "attrs">): ForkRef[] {
  const v = instance.attrs[FORKS_ATTR];
  return Array.isArray(v) ? (v as ForkRef[]).filter((f) => f && typeof f.instanceId === "string") : [];
}

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

export interface InstanceForksDeps {
  orchestrator: GraphOrchestrator;
  specs: SpecService;
  events: EventLog;
  recorder: EventRecorder;
  durability: Durability;
  executor: ExecutorIdentity;
  /** State snapshots (SQLite); without them there is no state per point, so no fork either. */
  snapshots: SnapshotStore | null;
  /** False on a PostgreSQL cluster's web process: a fork would start here, so forks are refused there (for now). */
  startsHere?: boolean;
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
    const { orchestrator, specs, durability } = this.deps;
    if (this.deps.startsHere === false) throw new ServiceError("BAD_REQUEST", "forks are not available on a PostgreSQL cluster yet: fork on a single-process (SQLite) server");
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
    const stateJson = JSON.stringify(parsed.data);
    const input = (await orchestrator.coordinator.instances.ioRecords(origin.instanceId)).find((r) => r.version === point.version)?.input ?? null;
    const forkedFrom: ForkOrigin = {
      instanceId: origin.instanceId,
      version: point.version,
      eventId: args.eventId,
      eventNumber: point.eventNumber,
      specId: head.specId === origin.specId ? null : head.specId,
      stateEdited: args.state !== undefined,
    };
    const store = orchestrator.coordinator;
    let instance!: GraphInstanceRecord;
    const seeded: { deliverId: string; from: PendingAtPoint }[] = [];
    try {
      durability.together(() => {
        const made = store.instances.create({
          graphName: graph.name,
          specId: head.specId,
          nodeIdMap: graph.nodeIdMap,
          input: (input ?? { content: null }) as never,
          attrs: { ...ownershipAttrs(this.deps.executor), ...startedByAttrs(args.startedBy), [FORKED_FROM_ATTR]: forkedFrom },
        });
        if (made instanceof Promise) throw new Error("forks need a synchronous store");
        instance = made;
        void store.instances.saveState(instance.instanceId, parsed.data);
        const seed = this.deps.snapshots!.saveSeed(instance.instanceId, stateJson);
        if (isPromise(seed)) {
          seed.catch(() => {}); // the fork fails here; its seed's own outcome no longer matters
          throw new Error("forks need a synchronous snapshot store");
        }
        for (const p of point.pending) {
          const deliverId = newSnowflake();
          const external = p.source === EXTERNAL_SOURCE || !graph.topology.has(p.source);
          void store.delivers.appendPending({
            deliverId,
            instanceId: instance.instanceId,
            sourceNode: external ? EXTERNAL_SOURCE : p.source,
            sourceNodeId: external ? EXTERNAL_SOURCE : graph.nodeIdMap[p.source],
            sourceInvocationId: null,
            targetNode: p.target,
            targetNodeId: graph.nodeIdMap[p.target],
            content: p.content,
            createdAt: Date.now(),
          });
          seeded.push({ deliverId, from: p });
        }
        // Read again inside the transaction: another fork made meanwhile stays listed.
        const current = store.instances.load(origin.instanceId);
        const forks = [...forksOf(current instanceof Promise || !current ? origin : current), { instanceId: instance.instanceId, eventId: args.eventId, eventNumber: point.eventNumber, at: Date.now() }];
        void store.instances.updateAttrs(origin.instanceId, { [FORKS_ATTR]: forks });
      });
    } catch (error) {
      throw durability.explain(error);
    }
    const created = durability.mark();
    const { recorder } = this.deps;
    recorder.record(instance.instanceId, 1, { type: "instance_status", instanceId: instance.instanceId, version: 1, from: null, to: "running" });
    for (const s of seeded) {
      recorder.record(instance.instanceId, 1, {
        type: "deliver_promoted",
        instanceId: instance.instanceId,
        deliverId: s.deliverId,
        source: s.from.source,
        target: s.from.target,
        payload: s.from.content,
      });
    }
    const started = orchestrator.startSeeded(instance);
    await durability.committed(created);
    await started;
    return { instanceId: instance.instanceId, version: instance.version, status: instance.status, forkedFrom };
  }

  /** The fork's origin and the origin's forks, for the instance view. */
  lineage(instance: GraphInstanceRecord): { forkedFrom: ForkOrigin | null; forks: ForkRef[] } {
    return { forkedFrom: forkedFromOf(instance), forks: forksOf(instance) };
  }

  private async point(instanceId: string, eventId: number): Promise<RunPoint> {
    const snapshots = this.deps.snapshots;
    if (!snapshots) throw new ServiceError("BAD_REQUEST", "the state at a point of a run is kept by the SQLite store only");
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
