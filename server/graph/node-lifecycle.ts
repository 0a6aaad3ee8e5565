import { isPromise } from "./awaitable";
import { NodeContext, type GraphContext, type NodeBinding } from "./context";
import { isGraphBubbleUp } from "./errors";
import type { Node } from "./node";
import type { DeliverRow } from "./persistence/records";

export interface LifecycleArgs {
  ctx: GraphContext;
  node: Node;
  binding: NodeBinding;
  nodeInstance: string;
  /** Called after outputs are promoted and before inputs are promoted, with the woken targets. */
  dispatch: (targets: readonly string[]) => void;
}

/**
 * The fixed lifecycle of one node execution:
 * begin invocation → integrate consumable deliveries (mark consumed) → execute → complete invocation
 * → promote staged outputs → dispatch wakeups → promote consumed inputs.
 * An interrupt or drain cancels the invocation and propagates; any other error fails it and propagates.
 */
export async function runNodeLifecycle(args: LifecycleArgs): Promise<void> {
  const { ctx, node, binding } = args;
  const opening = ctx.coordinator.openInvocation({
    instanceId: ctx.instanceId,
    nodeId: binding.nodeId,
    nodeName: binding.name,
  });
  const { invocation, inputs } = isPromise(opening) ? await opening : opening;
  const nctx = new NodeContext(ctx, binding, invocation, args.nodeInstance);
  const obs = ctx.observer;
  const started = obs ? performance.now() : 0;
  if (obs) announceStart(nctx, inputs);

  try {
    const before = ctx.runtime.beforeNode(nctx);
    if (before) await before;
    const executing = node.execute(nctx, node.integrate(inputs));
    if (executing) await executing;
    const after = ctx.runtime.afterNode(nctx);
    if (after) await after;
  } catch (error) {
    await settleFailure(nctx, error, started);
    throw error;
  }

  const completing = ctx.coordinator.completeInvocation(invocation, nctx.outbox, ctx.state);
  const promoted = isPromise(completing) ? await completing : completing;
  if (obs) announceCompletion(nctx, promoted, started);
  args.dispatch(promoted.length === 1 ? [promoted[0].targetNode] : uniqueTargets(promoted));
  const promoting = ctx.coordinator.promoteConsumed(invocation);
  if (isPromise(promoting)) await promoting;
}

async function settleFailure(nctx: NodeContext, error: unknown, started: number): Promise<void> {
  const { coordinator, observer } = nctx.graph;
  const bubble = isGraphBubbleUp(error);
  const message = error instanceof Error ? error.message : String(error);
  if (bubble) await coordinator.cancelInvocation(nctx.invocation, error.kind);
  else await coordinator.failInvocation(nctx.invocation, message);
  if (!observer) return;
  const durationMs = performance.now() - started;
  observer.onEvent(
    bubble
      ? { type: "node_cancelled", ...nodeFields(nctx), durationMs, reason: error.kind }
      : { type: "node_failed", ...nodeFields(nctx), durationMs, error: message },
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

function uniqueTargets(rows: readonly DeliverRow[]): string[] {
  return [...new Set(rows.map((r) => r.targetNode))];
}
