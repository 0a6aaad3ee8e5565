import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { HumanInputRequest } from "@/server/graph/nodes/human-input-node";
import { END, START } from "@/server/graph/names";
import type { GraphPayload } from "@/server/graph/payload";
import type { DeliverRow, DeliverStatus, GraphInstanceRecord, InstanceStatus, InvocationStatus } from "@/server/graph/persistence/records";
import type { GraphSpec } from "@/server/graph/spec/graph-spec";
import { notFound } from "./errors";
import type { EventLog, StoredEvent } from "./event-log";
import type { InstanceArchive } from "./instance-archive";
import type { InstanceListing, InstanceListItem, InstanceListPage, InstanceListQuery } from "./instance-listing";
import { InstanceTimeline, type TimelineRow, type TimelineSummary } from "./instance-timeline";
import { requireInstance, type GraphOrchestrator } from "./graph-orchestrator";
import type { SpecService } from "./spec-service";
import { breakpointsOf, heldAt } from "./breakpoints";
import { answersOf, waitingFor, type AnswerRecord } from "./waiting-for";
import { queuedWorkOf } from "./resume-due";
import type { QueuedWork } from "@/shared/queued-work";
import { forkedFromOf, forksOf, type ForkOrigin, type ForkRef } from "./instance-forks";

export interface InstanceSummary {
  instanceId: string;
  version: number;
  status: InstanceStatus;
  graphName: string;
  specId: string | null;
  createdAt: number;
  updatedAt: number;
  /** True when a PAUSED instance waits for a human's answer. */
  waiting: boolean;
  /**
   * On a cluster: a resume, answer, decision or reinvoke was accepted and no worker has started its run
   * yet (the instance's `resume_due`, cleared when the run starts); null otherwise, and always on SQLite.
   */
  queued: QueuedWork | null;
}

export interface InstanceVersion {
  version: number;
  status: InstanceStatus;
  createdAt: number;
  updatedAt: number;
  input: GraphPayload | null;
  /** What reached END in this version; null until it finished. */
  output: readonly GraphPayload[] | null;
}

export interface TopologyNode {
  name: string;
  nodeId: string;
  /** The spec's node_type; "start" / "end" for the engine's own nodes. */
  nodeType: string;
  description: string | null;
  isStart: boolean;
  isEnd: boolean;
  /**
   * Waits for several branches: a join node, or a node that starts only once all its active
   * predecessors delivered and has more than one that is not behind it in a loop (a loop's entry,
   * whose other predecessor is its own loop body, does not wait).
   */
  isJoin: boolean;
  /** For a subgraph node: its inner graph's nodes (their states are `<node>/<inner>`). */
  inner?: string[];
}

export interface TopologyEdge {
  from: string;
  to: string;
  /** Added by the engine (a node without outgoing edges delivers to END). */
  implicit: boolean;
}

export interface InvocationView {
  invocationId: string;
  node: string;
  nodeId: string;
  /** Version in the node's own invocation chain. */
  version: number;
  /** The instance version it ran in. */
  instanceVersion: number;
  status: InvocationStatus;
  startedAt: number;
  endedAt: number | null;
  error: string | null;
  consumed: string[];
  delivered: string[];
}

export interface DeliverView {
  deliverId: string;
  source: string;
  target: string;
  status: DeliverStatus;
  content: unknown;
  createdAt: number;
  sourceInvocationId: string | null;
  consumedBy: string | null;
}

export interface InstanceView {
  summary: InstanceSummary & {
    /** The version this view shows (the latest unless asked for another). */
    shownVersion: number;
    versions: InstanceVersion[];
    spec: { specId: string; name: string; version: string } | null;
    input: GraphPayload | null;
    result: readonly GraphPayload[] | null;
    /** Answers given to human-input nodes, oldest first. */
    answers: AnswerRecord[];
    /** Hidden from the Instances list unless asked for. */
    archived: boolean;
    /** The shown version's graph state as last saved (null before its first node saved it). */
    state: unknown;
    /** The spec's declared state fields (type and description), for the state panel. */
    stateFields: StateFieldView[];
    /** The instance this one was forked from, and the forks made from this one (see instance-forks.ts). */
    lineage: { forkedFrom: ForkOrigin | null; forks: ForkRef[] };
  };
  topology: { nodes: TopologyNode[]; edges: TopologyEdge[] };
  invocations: InvocationView[];
  delivers: DeliverView[];
  waitingFor: HumanInputRequest | Record<string, unknown> | null;
  /** The nodes the instance's runs pause before, and the one it is paused before now (see breakpoints.ts). */
  breakpoints: string[];
  heldAt: string | null;
}

export interface StateFieldView {
  name: string;
  type: string;
  description: string | null;
}

interface SpecView {
  summary: NonNullable<InstanceView["summary"]["spec"]>;
  topology: InstanceView["topology"];
  stateFields: StateFieldView[];
}

const MAX_SPEC_VIEWS = 64;

/** Read side of instances: lists, the instance view, the event log. */
export class InstanceQueryService {
  private readonly timelines: InstanceTimeline;
  /** Per spec revision (immutable): its summary and topology. */
  private readonly specViews = new Map<string, SpecView>();

  constructor(
    private readonly deps: {
      orchestrator: GraphOrchestrator;
      specs: SpecService;
      events: EventLog;
      /** The Instances list's paged, filtered query (SQL on SQLite). */
      listing: InstanceListing;
      archive: InstanceArchive;
    },
  ) {
    this.timelines = new InstanceTimeline(deps.events);
  }

  private get store() {
    return this.deps.orchestrator.coordinator;
  }

  /**
   * A page of the latest versions, most recent activity first, filtered on the server (status, waiting
   * for a person, graph, text over id and input, time range, archived), with the filter's totals.
   */
  async page(query: InstanceListQuery = {}): Promise<InstanceListPage> {
    return this.deps.listing.page(query);
  }

  /** One page's rows only (`page` for the cursor and totals). */
  async list(query: InstanceListQuery = {}): Promise<InstanceListItem[]> {
    return (await this.deps.listing.page(query)).items;
  }

  /**
   * The instance view. `node` narrows invocations and delivers: a name keeps that node's invocations
   * and the delivers they consumed or produced, null keeps none (the instance view loads them per
   * node: a long run has thousands), absent keeps all.
   */
  async get(args: { instanceId: string; version?: number; node?: string | null }): Promise<InstanceView> {
    const { instances, nodes, delivers } = this.store;
    const latest = requireInstance(await instances.load(args.instanceId), args.instanceId);
    const versions = await instances.versions(args.instanceId);
    const shown = args.version === undefined ? latest : versions.find((v) => v.version === args.version);
    if (!shown) throw notFound("version", `${args.instanceId}@${args.version}`);
    const io = await instances.ioRecords(args.instanceId);
    const ioOf = (v: number) => io.find((r) => r.version === v);
    const versionOf = versionLocator(versions);
    const all = args.node === null ? [] : await delivers.listByInstance(args.instanceId);
    const consumedBy = groupIds(all, (r) => r.consumedByInvocationId);
    const deliveredBy = groupIds(all, (r) => r.sourceInvocationId);
    const invocations = (args.node === null ? [] : await nodes.listByInstance(args.instanceId))
      .filter((inv) => args.node === undefined || inv.nodeName === args.node)
      .map((inv) => ({
        invocationId: inv.invocationId,
        node: inv.nodeName,
        nodeId: inv.nodeId,
        version: inv.version,
        instanceVersion: versionOf(inv.startedAt),
        status: inv.status,
        startedAt: inv.startedAt,
        endedAt: inv.endedAt,
        error: inv.error,
        consumed: consumedBy.get(inv.invocationId) ?? [],
        delivered: deliveredBy.get(inv.invocationId) ?? [],
      }))
      .filter((inv) => args.version === undefined || inv.instanceVersion === args.version);
    const touched = new Set(invocations.flatMap((inv) => [...inv.consumed, ...inv.delivered]));
    const rows = args.node === undefined ? all : all.filter((r) => touched.has(r.deliverId));
    const spec = latest.specId ? await this.specViewOf(latest.specId) : null;
    return {
      summary: {
        ...summarize(latest),
        shownVersion: shown.version,
        versions: versions.map((v) => ({
          version: v.version,
          status: v.status,
          createdAt: v.createdAt,
          updatedAt: v.updatedAt,
          input: ioOf(v.version)?.input ?? null,
          output: ioOf(v.version)?.output ?? null,
        })),
        spec: spec?.summary ?? null,
        input: ioOf(shown.version)?.input ?? null,
        result: ioOf(shown.version)?.output ?? null,
        answers: answersOf(latest),
        archived: await this.deps.archive.isArchived(args.instanceId),
        state: await this.deps.listing.versionState(args.instanceId, shown.version),
        stateFields: spec?.stateFields ?? [],
        lineage: { forkedFrom: forkedFromOf(latest), forks: await this.liveForks(latest) },
      },
      topology: spec?.topology ?? { nodes: [], edges: [] },
      invocations,
      delivers: rows.map((r) => ({
        deliverId: r.deliverId,
        source: r.sourceNode,
        target: r.targetNode,
        status: r.status,
        content: r.content,
        createdAt: r.createdAt,
        sourceInvocationId: r.sourceInvocationId,
        consumedBy: r.consumedByInvocationId,
      })),
      waitingFor: waitingFor(latest),
      breakpoints: breakpointsOf(latest),
      heldAt: heldAt(latest),
    };
  }

  /** The shown version's folded run state, row count and last rows (the latest version by default). */
  async timeline(args: { instanceId: string; version?: number; tail?: number }): Promise<TimelineSummary> {
    const latest = requireInstance(await this.store.instances.load(args.instanceId), args.instanceId);
    const version = args.version ?? latest.version;
    if (version > latest.version) throw notFound("version", `${args.instanceId}@${version}`);
    return this.timelines.summary({ instanceId: args.instanceId, version, tail: args.tail });
  }

  /** Timeline rows of one version by position. */
  async timelineRows(args: { instanceId: string; version: number; offset: number; limit: number }): Promise<TimelineRow[]> {
    requireInstance(await this.store.instances.load(args.instanceId), args.instanceId);
    return this.timelines.rows(args);
  }

  /** The instance's forks that still exist (a deleted fork stays listed in its origin's attrs). */
  private async liveForks(instance: GraphInstanceRecord): Promise<ForkRef[]> {
    const forks = forksOf(instance);
    const alive = await Promise.all(forks.map(async (f) => (await this.store.instances.load(f.instanceId)) !== null));
    return forks.filter((_, i) => alive[i]);
  }

  /** Drops what the view keeps of a deleted instance. */
  forget(instanceId: string): void {
    this.timelines.forget(instanceId);
  }

  async events(args: { instanceId: string; afterId?: number; limit?: number }): Promise<StoredEvent[]> {
    requireInstance(await this.store.instances.load(args.instanceId), args.instanceId);
    return await this.deps.events.list(args.instanceId, { afterId: args.afterId, limit: args.limit });
  }

  /**
   * What the view shows of an instance's spec revision. Revisions are immutable, so it is compiled once
   * per revision, not on every `get`: a live run's view asks for `get` after each node completes, and
   * parsing and compiling the YAML took several milliseconds of the server's event loop each time,
   * while the same loop streams the run's events.
   */
  private async specViewOf(specId: string): Promise<SpecView | null> {
    const cached = this.specViews.get(specId);
    if (cached) return cached;
    let view: SpecView;
    try {
      const record = await this.deps.specs.resolve(specId);
      const { spec, graph } = await this.deps.specs.compile(record);
      view = {
        summary: { specId: record.specId, name: record.name, version: record.version },
        topology: topologyOf(graph, spec),
        stateFields: Object.entries(spec.state ?? {}).map(([name, f]) => ({ name, type: f.type, description: f.description ?? null })),
      };
    } catch {
      return null; // a spec that no longer compiles still leaves the instance viewable
    }
    if (this.specViews.size >= MAX_SPEC_VIEWS) this.specViews.delete(this.specViews.keys().next().value as string);
    this.specViews.set(specId, view);
    return view;
  }
}

function summarize(r: GraphInstanceRecord): InstanceSummary {
  return {
    instanceId: r.instanceId,
    version: r.version,
    status: r.status,
    graphName: r.graphName,
    specId: r.specId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    // An answer or decision queued for a worker (a cluster) leaves the run waiting for nobody, as the list says.
    waiting: waitingFor(r) !== null && queuedWorkOf(r) === null,
    queued: queuedWorkOf(r),
  };
}

/** Deliver ids grouped by an invocation id of the row (its source, or its consumer), in ledger order. */
function groupIds(rows: readonly DeliverRow[], key: (r: DeliverRow) => string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const k = key(r);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(r.deliverId);
    else out.set(k, [r.deliverId]);
  }
  return out;
}

/** Which instance version an invocation that started at `t` belongs to (versions are sequential). */
function versionLocator(versions: readonly GraphInstanceRecord[]) {
  const sorted = [...versions].sort((a, b) => a.version - b.version);
  return (t: number): number => {
    let v = sorted[0]?.version ?? 1;
    for (const r of sorted) if (r.createdAt <= t) v = r.version;
    return v;
  };
}

function topologyOf(graph: CompiledGraph, spec: GraphSpec): InstanceView["topology"] {
  const declared = new Map<string, { nodeType: string; description: string | null; subgraph: string | null }>();
  const subgraphs = (spec as { subgraphs?: Record<string, { nodes?: unknown }> }).subgraphs ?? {};
  const innerNames = (ref: string | null): string[] | undefined => {
    const nodes = ref === null ? undefined : subgraphs[ref]?.nodes;
    if (Array.isArray(nodes)) return nodes.map((n) => String((n as { name?: unknown }).name));
    if (nodes && typeof nodes === "object") return Object.keys(nodes);
    return undefined;
  };
  type Declared = { node_type: string; description?: string; config?: { spec?: unknown } };
  const entries: [string, Declared][] = Array.isArray(spec.nodes)
    ? (spec.nodes as (Declared & { name: string })[]).map((n) => [n.name, n])
    : Object.entries(spec.nodes as Record<string, Declared>);
  for (const [name, n] of entries) declared.set(name, { nodeType: n.node_type, description: n.description ?? null, subgraph: n.node_type === "subgraph" ? String(n.config?.spec ?? "") : null });
  const t = graph.topology;
  const implicit = new Set(t.implicitEndEdges);
  const nodes = t.names.map((name) => {
    const d = declared.get(name);
    const nodeType = name === START ? "start" : name === END ? "end" : (d?.nodeType ?? "node");
    return {
      name,
      nodeId: graph.nodeIdMap[name],
      nodeType,
      description: d?.description ?? null,
      isStart: name === START,
      isEnd: name === END,
      isJoin:
        nodeType === "join" ||
        (name !== END &&
          graph.triggerModeOf(name) === "ON_ALL_PREDS" &&
          t.predecessorsOf(name).filter((p) => !t.reaches(name, p)).length > 1),
      ...(d?.subgraph != null ? { inner: innerNames(d.subgraph) } : {}),
    };
  });
  const edges = t.names.flatMap((from) =>
    t.successorsOf(from).map((to) => ({ from, to, implicit: to === END && implicit.has(from) })),
  );
  return { nodes, edges };
}
