import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import { isGraphDrained, isGraphInterrupt } from "@/server/graph/errors";
import { graphPayload, isGraphPayload, type GraphPayload } from "@/server/graph/payload";
import type { CoordinatorFactory, GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import type { GraphRunControl } from "@/server/graph/run-control";
import type { GraphStateSchema } from "@/server/graph/state";
import { invalidState, isStorageServiceError, ServiceError } from "./errors";
import type { EventRecorder } from "./event-recorder";
import { ownershipAttrs, type ExecutorIdentity } from "./executor-identity";
import { startedByAttrs, type StartedBy } from "./triggers/started-by";
import { BREAKPOINTS_ATTR, checkBreakpoints } from "./breakpoints";
import { pendingControlRequest } from "./control-request";
import type { Durability } from "./durability";
import type { ClaimKey } from "./idempotency-service";
import type { RunSlot } from "./instance-launcher";
import type { SpecService } from "./spec-service";
import { InstanceRun, type RunPlan } from "./instance-run";

export interface OrchestratorDeps {
  coordinators: CoordinatorFactory;
  specs: SpecService;
  recorder: EventRecorder;
  executor: ExecutorIdentity;
  /** When a write is committed (what a caller is told waits for it), and storage failures. */
  durability: Durability;
  /** How often running instances of this process refresh `attrs.heartbeat`. */
  heartbeatMs?: number;
  /**
   * A run of this process ended without settling its instance (a storage failure fenced it, or its
   * start failed): the instance is still RUNNING with nobody running it. The recovery service listens.
   */
  onOrphaned?: (instanceId: string) => void;
}

export interface InstanceRef {
  instanceId: string;
  version: number;
  status: GraphInstanceRecord["status"];
}

interface ActiveRun {
  /** The run itself: its control, attrs and engine call (shared with cluster workers). */
  readonly run: InstanceRun;
  readonly control: GraphRunControl;
  done: Promise<void>;
  /** Settles once the run's start (its transition to running, or its creation) is committed. */
  readonly started: Promise<void>;
  /** Marks the start as reached: the transaction open now holds it (idempotent). */
  reachStart(): void;
  /** A storage failure ended the run without settling its instance: recovery takes it from its last commit. */
  abandoned?: boolean;
  /** An external deliver arrived while running: look for unconsumed rows when the run settles. */
  wakeRequested?: boolean;
}

/**
 * Runs graph instances inside the server process. Each run is fire-and-forget with a tracked promise
 * (`settled(id)` awaits it); every engine event goes through the EventRecorder (log first, then bus).
 * The orchestrator knows how to start runs; deciding WHEN an external command may start one is the
 * GraphControlService's job, which is the only caller of the run-starting methods besides `create`.
 */
export class GraphOrchestrator {
  private readonly active = new Map<string, ActiveRun>();
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly deps: OrchestratorDeps) {
    // A failed write or commit may have taken steps of any run here with it: every run stops writing
    // and, once ended, is recovered from its last commit (see `afterRun`), as after a crash.
    deps.durability.onFailure(() => deps.durability.fence([...this.active.keys()]));
  }

  get coordinator(): GraphPersistenceCoordinator {
    return this.deps.coordinators.create();
  }

  /**
   * Creates an instance from a spec (name → latest revision, or a spec id) and starts it. Answers once
   * the instance is committed (with its first node, in the group commit); a write that fails throws a
   * STORAGE_* ServiceError and leaves no instance. `startAfter`: the run's engine call waits for it (a
   * burst of REST creates answers before the runs they started), and the answer waits only for the
   * instance's commit.
   */
  async create(args: { spec: string; input?: unknown; claim?: ClaimKey; startedBy?: StartedBy; breakpoints?: readonly string[]; startAfter?: RunSlot }): Promise<InstanceRef> {
    // Not awaited when ready (SQLite, a cached revision): a create pays no microtask for its spec.
    const resolving = this.deps.specs.resolveCompiled(args.spec);
    const { head: record, compiled } = isPromise(resolving) ? await resolving : resolving;
    const { graph } = compiled;
    const input = toPayload(args.input);
    const { claim } = args;
    const breakpoints = args.breakpoints?.length ? checkBreakpoints(graph.nodeIdMap, args.breakpoints) : null;
    let instance: GraphInstanceRecord;
    // The transaction that holds the new instance (its event joins it): the answer waits for its commit.
    // Read at once, before the event (whose failure would end that transaction) and before any await
    // (a group commit may end it at the next microtask).
    let created = 0;
    try {
      const write = () =>
        this.coordinator.instances.create({
          graphName: graph.name,
          specId: record.specId,
          nodeIdMap: graph.nodeIdMap,
          input,
          attrs: { ...ownershipAttrs(this.deps.executor), ...startedByAttrs(args.startedBy), ...(breakpoints ? { [BREAKPOINTS_ATTR]: breakpoints } : {}) },
        });
      // With an Idempotency-Key, its row commits with the instance (one transaction of their own).
      const creating = claim
        ? this.deps.durability.together(() => {
            const made = write();
            if (!(made instanceof Promise)) claim(made.instanceId);
            return made;
          })
        : write();
      created = this.deps.durability.mark();
      // A synchronous store (SQLite) is not awaited: its event joins the transaction holding it.
      instance = creating instanceof Promise ? await creating : creating;
      if (claim && creating instanceof Promise) claim(instance.instanceId);
    } catch (error) {
      throw this.deps.durability.explain(error);
    }
    this.deps.recorder.record(instance.instanceId, instance.version, {
      type: "instance_status",
      instanceId: instance.instanceId,
      version: instance.version,
      from: null,
      to: "running",
    });
    const started = this.launch(graph, { instance, mode: "fresh", input }, args.startAfter);
    await this.deps.durability.committed(created);
    // A deferred run's start is not part of the answer: the committed instance is (RUNNING, owned by this
    // executor, so a crash before its run starts is recovered like any other).
    if (!args.startAfter) await started;
    return { instanceId: instance.instanceId, version: instance.version, status: instance.status };
  }

  /** New input to a COMPLETED or FAILED instance: version N+1, a fresh run from the entry node. */
  reinvoke(instance: GraphInstanceRecord, input: unknown): Promise<void> {
    return this.launchOf(instance, { mode: "fresh", input: toPayload(input) });
  }

  /** Resumes a PAUSED instance: after a drain (value undefined) or with a human's answer. */
  resume(instance: GraphInstanceRecord, value?: unknown, options: { step?: boolean } = {}): Promise<void> {
    return this.launchOf(instance, { mode: "recovery", restoreState: true, resume: { value }, step: options.step });
  }

  /** Runs a CRASHED instance again with bootstrap RECOVERY (state and ledger from the store). */
  recover(instance: GraphInstanceRecord): Promise<void> {
    const honour = pendingControlRequest(instance) ?? undefined;
    return this.launchOf(instance, { mode: "recovery", restoreState: true, honour });
  }

  /**
   * Picks up external delivers of a COMPLETED or FAILED instance: version N+1 in RECOVERY mode, seeded
   * from the pending rows (the input of the version is the delivered content).
   */
  wake(instance: GraphInstanceRecord, input: unknown): Promise<void> {
    return this.launchOf(instance, { mode: "recovery", restoreState: true, input: toPayload(input) });
  }

  /**
   * Starts an instance seeded with a state and open delivers (a fork, see instance-forks.ts): RECOVERY
   * from what was written with it, as after a crash; the nodes the delivers wait for run first.
   */
  startSeeded(instance: GraphInstanceRecord): Promise<void> {
    return this.launchOf(instance, { mode: "recovery", restoreState: true });
  }

  isRunningHere(instanceId: string): boolean {
    return this.active.has(instanceId);
  }

  /** The run-control handle of a run in this process, if any. */
  controlOf(instanceId: string): GraphRunControl | null {
    return this.active.get(instanceId)?.control ?? null;
  }

  /**
   * An external deliver for `node` arrived during the run: its scheduler takes it now (a running node
   * once more after its invocation ends), as a cluster worker's does. Marked too (ActiveRun.wakeRequested):
   * a run that ends before it schedules the node leaves the row pending, and a follow-up run takes it.
   */
  requestWake(instanceId: string, node: string): boolean {
    const run = this.active.get(instanceId);
    if (!run) return false;
    run.wakeRequested = true;
    run.control.wake(node);
    return true;
  }

  /** Resolves when the instance's current run in this process (if any) has settled. */
  async settled(instanceId: string): Promise<void> {
    for (let run = this.active.get(instanceId); run; run = this.active.get(instanceId)) await run.done;
  }

  /** Every run of this process settled (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()].map((r) => r.done));
  }

  activeIds(): string[] {
    return [...this.active.keys()];
  }

  /** Requests a pause of every run here and waits for them to drain (graceful shutdown). */
  async drainAll(): Promise<void> {
    for (const run of this.active.values()) run.control.requestPause();
    await this.idle();
  }

  /** The instance's compiled revision: synchronous when cached or on a synchronous spec store. */
  graphOf(instance: GraphInstanceRecord): Awaitable<CompiledGraph<GraphStateSchema>> {
    if (!instance.specId) throw new ServiceError("BAD_REQUEST", `instance ${instance.instanceId} has no spec to compile`);
    return chain(this.deps.specs.resolveCompiled(instance.specId, instance.nodeIdMap), (r) => r.compiled.graph);
  }

  /**
   * `launch` with the instance's graph. Launched at once when the graph is ready (the run is active
   * when this returns, as callers checking `isRunningHere` expect); after the spec store answers if not.
   */
  private launchOf(instance: GraphInstanceRecord, args: Omit<RunPlan, "instance">): Promise<void> {
    const graph = this.graphOf(instance);
    if (isPromise(graph)) return graph.then((g) => this.launch(g, { ...args, instance }));
    return this.launch(graph, { ...args, instance });
  }

  /**
   * Starts a run in this process. The promise settles once the run's start is committed: resolved, or
   * rejected with a STORAGE_* ServiceError when the write holding it was lost. The run goes on either way
   * (`settled(id)` awaits its end).
   */
  private launch(graph: CompiledGraph<GraphStateSchema>, plan: RunPlan, startAfter?: RunSlot): Promise<void> {
    const { instanceId } = plan.instance;
    if (this.active.has(instanceId)) throw invalidState(instanceId, "running", "it already runs in this process");
    let reach!: (mark: number) => void;
    const reached = new Promise<number>((resolve) => (reach = resolve));
    const started = reached.then((mark) => this.deps.durability.committed(mark));
    // Whoever launched may not await it (a recovery at start-up): never an unhandled rejection.
    started.catch(() => {});
    let reachedOnce = false;
    const reachStart = () => {
      if (!reachedOnce) reach(this.deps.durability.mark());
      reachedOnce = true;
    };
    // The transition to running (or the creation) is in the transaction open at its run_started event.
    const run = new InstanceRun(plan, { onStarted: reachStart });
    const active: ActiveRun = { run, control: run.control, done: Promise.resolve(), started, reachStart };
    this.active.set(instanceId, active);
    this.startHeartbeat();
    // Deferred: the run is here already (its control answers pause and stop), its engine call comes later.
    const executing = startAfter ? startAfter().then((release) => this.execute(graph, active).finally(release)) : this.execute(graph, active);
    active.done = executing.finally(() => this.afterRun(instanceId, active));
    return started;
  }

  private async execute(graph: CompiledGraph<GraphStateSchema>, active: ActiveRun): Promise<void> {
    const { instanceId, version } = active.run.plan.instance;
    const coordinator = this.coordinator;
    try {
      await active.run.execute(graph, {
        coordinator,
        events: this.deps.recorder.observerFor(instanceId, version),
        ownership: ownershipAttrs(this.deps.executor),
      });
    } catch (error) {
      if (isStorageServiceError(this.deps.durability.explain(error))) {
        active.abandoned = true;
        console.error(`[modex] instance ${instanceId} stopped by a storage failure (recovery continues it): ${(error as Error).message}`);
      } else if (!isGraphInterrupt(error) && !isGraphDrained(error)) {
        // The engine already marked the instance FAILED (and logged node_failed); keep the server alive.
        console.error(`[modex] instance ${instanceId} failed:`, error instanceof Error ? error.message : error);
      }
    } finally {
      // A run that ended before its start event (it failed early): its start is what was committed.
      active.reachStart();
    }
  }

  private afterRun(instanceId: string, run: ActiveRun): void {
    if (this.active.get(instanceId) === run) this.active.delete(instanceId);
    if (this.active.size === 0) this.stopHeartbeat();
    if (this.deps.durability.isFenced(instanceId) || run.abandoned) {
      // Nothing of this run writes any more: lift the fence, and let recovery take it from the last commit.
      this.deps.durability.release(instanceId);
      this.deps.onOrphaned?.(instanceId);
      return;
    }
    if (run.wakeRequested) void this.wakeIfPending(instanceId);
  }

  /** After a run that ended while external delivers arrived: run again if any is still unconsumed. */
  private async wakeIfPending(instanceId: string): Promise<void> {
    try {
      const instance = await this.coordinator.instances.load(instanceId);
      if (!instance || (instance.status !== "completed" && instance.status !== "failed")) return;
      const pending = await this.coordinator.delivers.listByStatus(instanceId, ["PENDING"]);
      const external = pending.filter((r) => r.sourceInvocationId === null);
      if (external.length === 0 || this.active.has(instanceId)) return;
      this.wake(instance, external[0].content);
    } catch (error) {
      console.error(`[modex] could not wake ${instanceId}:`, error);
    }
  }

  private startHeartbeat(): void {
    const every = this.deps.heartbeatMs ?? 5_000;
    if (this.heartbeat || every <= 0) return;
    this.heartbeat = setInterval(() => void this.beat(), every);
    this.heartbeat.unref?.();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private async beat(): Promise<void> {
    for (const id of this.active.keys()) {
      try {
        await this.coordinator.instances.updateAttrs(id, { heartbeat: Date.now() });
      } catch {
        // The next beat tries again; a missing beat only matters to the sweeper after a long lapse.
      }
    }
  }
}

export function requireInstance(instance: GraphInstanceRecord | null, instanceId: string): GraphInstanceRecord {
  if (!instance) throw new ServiceError("NOT_FOUND", `instance ${instanceId} not found`, { missing: "instance" });
  return instance;
}

function toPayload(input: unknown): GraphPayload {
  if (isGraphPayload(input)) return graphPayload(input);
  return graphPayload({ content: input ?? null });
}
