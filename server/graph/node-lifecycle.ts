import { isPromise, type Awaitable } from "./awaitable";
import { NodeContext, type GraphContext } from "./context";
import { GraphDrained, isGraphBubbleUp, isGraphInterrupt, NodeTimeoutError } from "./errors";
import type { GraphLayout } from "./graph-layout";
import type { Node } from "./node";
import { retryDelay } from "./node-policy";
import type { OpenedInvocation } from "./persistence/coordinator";
import type { DeliverRow } from "./persistence/records";
import { othersLeftInvalid, stateWriteError } from "./state-write-tracker";

/** What every node execution of one scheduler run shares: made once per run, not per node. */
export interface LifecycleRun {
  ctx: GraphContext;
  /** The graph whose nodes run: each is addressed as its position in it. */
  layout: GraphLayout;
  /**
   * Called after outputs are promoted and before inputs are promoted, with the promoted rows and the
   * node that delivered them: each row's target wakes. A target may appear more than once;
   * schedulers wake it once.
   */
  dispatch: (promoted: readonly DeliverRow[], from: NodeContext) => void;
}


/**
 * The fixed lifecycle of one node execution:
 * begin invocation → integrate consumable deliveries (mark consumed) → execute → complete invocation
 * → promote staged outputs → dispatch wakeups → promote consumed inputs.
 * An interrupt or drain cancels the invocation and propagates; any other error fails it and propagates.
 * `index` is the node's position in `run.layout`; `seq` numbers its executions in the run (its label
 * is `name#seq`).
 *
 * Returns synchronously when the stores, the runtime hooks and the node all do (the common case for
 * in-memory runs): no promise, no suspended frame per node. A wide fan-out runs thousands of these at
 * once, and every suspended async frame would outlive the young generation. A node's failure is
 * settled and rethrown — synchronously when the node failed synchronously and the store settled it
 * synchronously, else as a rejection; a synchronous store's own error is thrown as it happens.
 * Callers handle both.
 */
export function runNodeLifecycle(run: LifecycleRun, index: number, seq: number, attempt = 1): Awaitable<void> {
  const nctx = new NodeContext(run.ctx, run.layout, index, seq);
  // A retry owed from an earlier run (its backoff was cut by a restart or a pause): the rest of the wait
  // first, then the attempt after the one that failed.
  const owed = attempt === 1 ? run.ctx.owedRetries : undefined;
  if (owed !== undefined && owed.size > 0) {
    const retry = owed.get(nctx.name);
    if (retry !== undefined) {
      owed.delete(nctx.name);
      return retryAfter(run, nctx, retry.attempt + 1, Math.max(0, retry.dueAt - Date.now()));
    }
  }
  const node = run.layout.nodes[index];
  // The context is the begin's arguments (instanceId, nodeId, nodeName): no object of their own.
  const opening = run.ctx.coordinator.openInvocation(nctx);
  if (isPromise(opening)) return opening.then((opened) => runOpened(run, node, nctx, opened, attempt));
  return runOpened(run, node, nctx, opening, attempt);
}

function runOpened(run: LifecycleRun, node: Node, nctx: NodeContext, { invocation, inputs }: OpenedInvocation, attempt: number): Awaitable<void> {
  nctx.bind(invocation);
  const observer = run.ctx.observer;
  const started = observer ? performance.now() : 0;
  if (observer) announceStart(nctx, inputs);
  let body: Awaitable<void>;
  try {
    body = executeBody(nctx, node, inputs);
  } catch (error) {
    return failedOrRetried(run, node, nctx, error, started, attempt);
  }
  if (isPromise(body)) {
    const timeoutMs = node.policy?.timeoutMs;
    const bounded = timeoutMs === undefined ? body : withDeadline(body, timeoutMs, node.name);
    return bounded.then(
      () => finish(run, node, nctx, started, attempt),
      (error: unknown) => failedOrRetried(run, node, nctx, error, started, attempt),
    );
  }
  return finish(run, node, nctx, started, attempt);
}

/**
 * A node's failure: final (settled and rethrown, see `failed`), or — its retry policy allowing — settled
 * as this attempt's failure, then the node runs again after the backoff, as a new invocation that claims
 * the same inputs (they stay claimed by the failed one until then). A pause or stop during the backoff
 * drains the run instead; its resume runs the node again.
 */
function failedOrRetried(run: LifecycleRun, node: Node, nctx: NodeContext, thrown: unknown, started: number, attempt: number): Awaitable<void> {
  const error = checkFailedWrites(nctx, thrown);
  // A refused value that could not be put back would be the retry's starting state: not retried.
  const delay = node.policy?.retry && !nctx.graph.stateSpoiled ? retryDelay(node.policy.retry, attempt, error) : null;
  if (delay === null) return failed(nctx, error, started);
  const retry = () => retryAfter(run, nctx, attempt + 1, delay);
  const settling = settleFailure(nctx, error, started, { attempt, retryInMs: delay });
  return isPromise(settling) ? settling.then(retry) : retry();
}

function retryAfter(run: LifecycleRun, nctx: NodeContext, attempt: number, delayMs: number): Promise<void> {
  const control = run.ctx.control;
  return new Promise<void>((resolve, reject) => {
    let off = (): void => {};
    const done = () => {
      clearTimeout(timer);
      off();
      const reason = control?.request;
      if (reason) reject(new GraphDrained(reason, [nctx.nodeInstance]));
      else resolve();
    };
    const timer = setTimeout(done, delayMs);
    if (control) off = control.onRequest(done) as () => void;
    if (control?.request) done();
  }).then(() => runNodeLifecycle(run, nctx.index, nctx.seq, attempt));
}

/** The execution, or a NodeTimeoutError once `timeoutMs` passed (the engine stops waiting for it). */
function withDeadline(body: Promise<void>, timeoutMs: number, node: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NodeTimeoutError(node, timeoutMs)), timeoutMs);
  });
  return Promise.race([body, deadline]).finally(() => clearTimeout(timer));
}

/** beforeNode → execute → afterNode, awaiting only what is actually asynchronous. */
function executeBody(nctx: NodeContext, node: Node, inputs: readonly DeliverRow[]): Awaitable<void> {
  const runtime = nctx.graph.runtime;
  const before = runtime.beforeNode(nctx);
  if (before) return before.then(() => executeNode(nctx, node, inputs));
  return executeNode(nctx, node, inputs);
}

function executeNode(nctx: NodeContext, node: Node, inputs: readonly DeliverRow[]): Awaitable<void> {
  const executing = node.execute(nctx, node.integrate(inputs));
  if (executing) return executing.then(() => nctx.graph.runtime.afterNode(nctx));
  const after = nctx.graph.runtime.afterNode(nctx);
  if (after) return after;
}

/**
 * A failed execution's state writes: those the schema refuses are put back (nothing wrong is stored by
 * the failure's checkpoint, and a retry starts from the state before). An interrupt raised after such a
 * write becomes the node's failure: pausing would store the value, and the resume would fail on it.
 */
function checkFailedWrites(nctx: NodeContext, error: unknown): unknown {
  const writes = nctx.stateWrites;
  if (writes === null) return error;
  const problems = writes.check(nctx.graph.stateFields!);
  writes.release();
  if (problems.length === 0) return error;
  if (problems.some((p) => p.kept)) nctx.graph.stateSpoiled = true;
  if (!isGraphInterrupt(error)) return error;
  nctx.graph.state.resumeTarget = null;
  return stateWriteError(nctx.name, problems);
}

/**
 * check state writes → complete invocation → promote staged outputs → dispatch wakeups → promote
 * consumed inputs. The fields the node touched are checked against their schemas before anything is
 * committed: a refused value fails the node (StateValidationError) and is put back.
 */
function finish(run: LifecycleRun, node: Node, nctx: NodeContext, started: number, attempt: number): Awaitable<void> {
  const graph = nctx.graph;
  const writes = nctx.stateWrites;
  let state: unknown = graph.state;
  if (writes !== null) {
    const problems = writes.check(graph.stateFields!);
    if (problems.length > 0) return failedOrRetried(run, node, nctx, stateWriteError(nctx.name, problems), started, attempt);
  }
  // Another branch's write in progress, or a value a failure could not put back: keep the stored state.
  const live = graph.liveWrites;
  if (graph.stateSpoiled || (live !== undefined && live.size > 0 && othersLeftInvalid(live, writes, graph.stateFields!, graph.state))) {
    state = undefined;
  }
  writes?.release();
  const completing = graph.coordinator.completeInvocation(nctx.invocation, nctx.outbox, state);
  if (isPromise(completing)) return completing.then((promoted) => dispatchAndPromote(run, nctx, promoted, started));
  return dispatchAndPromote(run, nctx, completing, started);
}

function dispatchAndPromote(run: LifecycleRun, nctx: NodeContext, promoted: DeliverRow[], started: number): Awaitable<void> {
  if (nctx.graph.observer) announceCompletion(nctx, promoted, started);
  run.dispatch(promoted, nctx);
  const promoting = nctx.graph.coordinator.promoteConsumed(nctx.invocation);
  if (isPromise(promoting)) return promoting;
}

/**
 * Settles the invocation as cancelled or failed, then rethrows the original error: synchronously when
 * the store settles synchronously (the caller can then settle the instance in the same stretch, and a
 * durable store commits both at once), else as a rejection.
 */
function failed(nctx: NodeContext, error: unknown, started: number): Promise<never> {
  const settling = settleFailure(nctx, error, started);
  if (isPromise(settling)) {
    return settling.then(() => {
      throw error;
    });
  }
  throw error;
}

interface RetryNote {
  attempt: number;
  retryInMs: number;
}

function settleFailure(nctx: NodeContext, error: unknown, started: number, retry?: RetryNote): Awaitable<void> {
  const { coordinator } = nctx.graph;
  const bubble = isGraphBubbleUp(error);
  const message = error instanceof Error ? error.message : String(error);
  const settling = bubble ? coordinator.cancelInvocation(nctx.invocation, error.kind) : coordinator.failInvocation(nctx.invocation, message);
  if (isPromise(settling)) return settling.then(() => announceSettled(nctx, error, message, started, retry));
  announceSettled(nctx, error, message, started, retry);
}

function announceSettled(nctx: NodeContext, error: unknown, message: string, started: number, retry?: RetryNote): void {
  const observer = nctx.graph.observer;
  if (!observer) return;
  const durationMs = performance.now() - started;
  observer.onEvent(
    isGraphBubbleUp(error)
      ? { type: "node_cancelled", ...nodeFields(nctx), durationMs, reason: error.kind }
      : { type: "node_failed", ...nodeFields(nctx), durationMs, error: message, ...retry },
  );
}

function announceStart(nctx: NodeContext, inputs: readonly DeliverRow[]): void {
  const obs = nctx.graph.observer!;
  obs.onEvent({ type: "node_started", ...nodeFields(nctx) });
  for (const row of inputs) {
    obs.onEvent({
      type: "deliver_consumed",
      instanceId: row.instanceId,
      deliverId: row.deliverId,
      source: row.sourceNode,
      target: row.targetNode,
      payload: row.content,
      consumer: nctx.nodeInstance,
      invocationId: nctx.invocation.invocationId,
    });
  }
}

function announceCompletion(nctx: NodeContext, promoted: readonly DeliverRow[], started: number): void {
  const obs = nctx.graph.observer!;
  for (const type of ["deliver_staged", "deliver_promoted"] as const) {
    for (const row of promoted) {
      obs.onEvent({
        type,
        instanceId: row.instanceId,
        deliverId: row.deliverId,
        source: row.sourceNode,
        target: row.targetNode,
        payload: row.content,
      });
    }
  }
  obs.onEvent({
    type: "node_completed",
    ...nodeFields(nctx),
    durationMs: performance.now() - started,
    delivered: promoted.length,
  });
}

function nodeFields(nctx: NodeContext) {
  return {
    instanceId: nctx.graph.instanceId,
    node: nctx.binding.name,
    nodeId: nctx.binding.nodeId,
    nodeInstance: nctx.nodeInstance,
    invocationId: nctx.invocation.invocationId,
    version: nctx.invocation.version,
  };
}
