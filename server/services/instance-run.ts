import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { BootstrapMode } from "@/server/graph/context";
import type { EngineEvent, EngineObserver } from "@/server/graph/events";
import { graphPayload, type GraphPayload } from "@/server/graph/payload";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { GraphRunControl } from "@/server/graph/run-control";
import type { GraphStateSchema } from "@/server/graph/state";
import { breakpointsOf, HELD_AT_ATTR, heldAt } from "./breakpoints";
import { CONTROL_REQUEST_ATTR, type ControlRequest } from "./control-request";
import { owedRetriesOf, RETRY_BACKOFFS_ATTR, RetryBackoffs } from "./retry-backoffs";
import { RESUME_DUE_ATTR } from "./resume-due";
import { WAITING_FOR_ATTR } from "./waiting-for";

/** What one run of an instance is: how it starts, and with what. */
export interface RunPlan {
  instance: GraphInstanceRecord;
  mode: BootstrapMode;
  input?: GraphPayload;
  /** Restore the persisted shared state (pause, interrupt and crash recovery). */
  restoreState?: boolean;
  /** Set for a resume: `compiled.resume(ctx, value)` (the human's answer, or undefined). */
  resume?: { value: unknown };
  /**
   * A pause or stop to honour: asked before a crash (the run drains at once), or, on a cluster, of a
   * resume accepted before the run started (it drains once its entry node delivered the resume value).
   */
  honour?: ControlRequest;
  /** Step: the next node starts, then the run holds before the one after. */
  step?: boolean;
}

/**
 * Where a run executes: what differs between the single process (its coordinator factory's
 * coordinator, the app's EventRecorder, its executor identity) and a cluster worker (the fenced
 * coordinator of the worker holding the lease, the PostgreSQL event log, the lease as the owner).
 */
export interface RunSite {
  coordinator: GraphPersistenceCoordinator;
  /** Each engine event, once what it implies for the instance's attrs is saved. */
  events: EngineObserver;
  /** Attrs that say who runs the instance, written as the run starts (may be empty). */
  ownership: Record<string, unknown>;
  /** Aborts the run's node bodies (a worker that lost the lease). */
  signal?: AbortSignal;
  /**
   * The instance as it is now, where nothing else changes its status or version until the run starts
   * (a worker holding the lease read it): the engine starts from it instead of reading it again.
   */
  current?: GraphInstanceRecord;
}

/**
 * One run of an instance, wherever it executes: the control it starts with (a request to honour, the
 * breakpoints, the node it held before, a step), the attrs it keeps current (what an interrupted run
 * waits for, the breakpoint it holds at, its retry backoffs) and the engine call (fresh, recovery or
 * resume). GraphOrchestrator runs these in the app's process; ClusterWorker under an instance's lease.
 */
export class InstanceRun {
  readonly control: GraphRunControl;
  readonly backoffs: RetryBackoffs;

  /**
   * `control`: an existing handle (a worker creates it when it takes the job, so pause and stop asked
   * meanwhile already count). `onStarted`: the run's start (transition to running, or creation) is in
   * the transaction open now (its `run_started` event).
   */
  constructor(
    readonly plan: RunPlan,
    options: { control?: GraphRunControl; onStarted?: () => void } = {},
  ) {
    this.control = options.control ?? new GraphRunControl();
    this.onStarted = options.onStarted ?? (() => {});
    const control = this.control;
    this.honour();
    control.setBreakpoints(breakpointsOf(plan.instance));
    // Continue past the breakpoint the run held before; Step: that node, then hold again.
    const held = heldAt(plan.instance);
    if (held) control.passOnce(held);
    if (plan.step) control.step();
    // A fresh run (new input) owes no retry of an earlier version; any other run waits out the rest of one.
    this.backoffs = new RetryBackoffs(this.owed());
  }

  private readonly onStarted: () => void;
  /** Events wait here behind an attrs save in progress, so they are passed on in emission order. */
  private passing: Promise<void> | null = null;

  /** Runs the graph to its end; engine errors (interrupt, drain, failure, storage) propagate. */
  async execute(graph: CompiledGraph<GraphStateSchema>, site: RunSite): Promise<void> {
    const { plan } = this;
    const { instanceId } = plan.instance;
    const { coordinator } = site;
    const changes = { ...site.ownership, ...this.cleared(Object.keys(site.ownership).length === 0) };
    if (Object.keys(changes).length > 0) await coordinator.instances.updateAttrs(instanceId, changes);
    const state = plan.restoreState ? ((await coordinator.instances.loadState(instanceId)) ?? undefined) : undefined;
    const owed = this.owed();
    const ctx = graph.createContext({
      instanceId,
      coordinator,
      control: this.control,
      input: plan.input ?? (await inputOf(coordinator, plan.instance)),
      state: state as never,
      storedState: state !== undefined,
      observer: this.observer(coordinator, site.events),
      owedRetries: owed.size > 0 ? owed : undefined,
      signal: site.signal,
      // Saved before the PAUSED status commits: no process sees it paused without what it waits for.
      beforeInterruptPause: ({ value }) => coordinator.instances.updateAttrs(instanceId, { [WAITING_FOR_ATTR]: value ?? null }),
      instance: site.current,
    });
    try {
      if (plan.resume) {
        // compiled.resume clears the handle's request: one asked before the start is made again at run_started.
        this.carried = this.control.request;
        await graph.resume(ctx, plan.resume.value);
      } else await graph.run(ctx, plan.mode);
    } finally {
      // Events held behind an attrs save are passed on before the run counts as ended.
      for (let p = this.passing; p; p = this.passing) {
        await p;
        if (this.passing === p) this.passing = null;
      }
    }
  }

  /** A request asked of the run before its start (a resume clears the handle's), honoured again at run_started. */
  private carried: ControlRequest | null = null;

  private honour(): void {
    for (const request of [this.plan.honour, this.carried]) {
      if (request === "pause") this.control.requestPause();
      if (request === "stop") this.control.requestStop();
    }
  }

  private owed() {
    return this.plan.mode === "fresh" ? new Map() : owedRetriesOf(this.plan.instance);
  }

  /**
   * A new start clears what the last one waited for and was asked; an honoured request stays until
   * done. `onlyIfSet`: with nobody to name as the owner (a worker: the lease does), a clear of attrs
   * the instance does not have is left out, so a plain start writes nothing here.
   */
  private cleared(onlyIfSet: boolean): Record<string, unknown> {
    const { plan } = this;
    const all: Record<string, unknown> = {
      [WAITING_FOR_ATTR]: null,
      [HELD_AT_ATTR]: null,
      [RESUME_DUE_ATTR]: null,
      ...(plan.honour ? {} : { [CONTROL_REQUEST_ATTR]: null }),
      ...(plan.mode === "fresh" ? { [RETRY_BACKOFFS_ATTR]: null } : {}),
    };
    const attrs = plan.instance.attrs;
    if (!onlyIfSet || Object.keys(all).some((k) => attrs[k] !== undefined && attrs[k] !== null)) return all;
    return {};
  }

  /** Saves what an event implies for the attrs before passing it on (where a drained run holds, retry backoffs). */
  private observer(coordinator: GraphPersistenceCoordinator, events: EngineObserver): EngineObserver {
    const pass = (event: EngineEvent) => {
      try {
        events.onEvent(event);
      } catch (error) {
        console.error(`[modex] ${event.type} of ${event.instanceId} not recorded:`, error);
      }
    };
    return {
      onEvent: (event) => {
        if (event.type === "run_started") {
          // A resume clears the handle's request as it starts (compiled.resume): the one to honour is
          // made again here, before the first safe point (a resume's entry node still delivers its value).
          this.honour();
          this.onStarted();
        }
        // What a paused run waits for was saved with the pause (beforeInterruptPause); where a
        // drained run holds is saved before the drain is announced.
        const attrs =
          event.type === "drained" && this.control.heldAt ? { [HELD_AT_ATTR]: this.control.heldAt } : this.backoffs.attrsFor(event);
        const saving = attrs ? coordinator.instances.updateAttrs(event.instanceId, attrs) : undefined;
        if (saving instanceof Promise) {
          const saved = saving.then(
            () => true,
            (error: unknown) => (console.error("[modex] could not save what the run waits for:", error), false),
          );
          // Not announced when its save failed (it would name attrs that are not there).
          this.passing = Promise.all([this.passing, saved]).then(([, ok]) => {
            if (ok) pass(event);
          });
          return;
        }
        if (this.passing) this.passing = this.passing.then(() => pass(event));
        else pass(event);
      },
    };
  }
}

/** The input of the instance's current version (a run that was given none). */
export async function inputOf(coordinator: GraphPersistenceCoordinator, instance: GraphInstanceRecord): Promise<GraphPayload> {
  const io = await coordinator.instances.ioRecords(instance.instanceId);
  const mine = io.find((r) => r.version === instance.version) ?? io[io.length - 1];
  return mine?.input ?? graphPayload({ content: null });
}
