import { chain, type Awaitable } from "./awaitable";
import type { CompiledGraph } from "./compiled-graph";
import type { GraphContext } from "./context";
import { InstanceStateError, isGraphDrained, isGraphInterrupt } from "./errors";
import { canTransition, INSTANCE_STATUSES, type GraphInstanceRecord, type InstanceStatus } from "./persistence/records";

/**
 * Brings the instance into RUNNING for this run: creates it on first use, resumes a paused or
 * crashed one, and opens version N+1 for new input to a completed or failed one. Stopped is terminal.
 */
export async function enterInstance(ctx: GraphContext, graph: CompiledGraph): Promise<void> {
  const store = ctx.coordinator.instances;
  const known = ctx.current?.instanceId === ctx.instanceId ? ctx.current : undefined;
  delete ctx.current; // the next run of this context reads the instance as it is then
  const existing = known ?? (ctx.instanceId ? await store.load(ctx.instanceId) : null);
  if (!existing) {
    const created = await store.create({
      instanceId: ctx.instanceId || undefined,
      graphName: graph.name,
      nodeIdMap: graph.nodeIdMap,
      input: ctx.userInput,
    });
    adopt(ctx, created);
    announce(ctx, null, "running");
    return;
  }
  switch (existing.status) {
    case "running":
      adopt(ctx, existing);
      return;
    case "paused":
    case "crashed":
      adopt(ctx, await store.transition(ctx.instanceId, "running"));
      announce(ctx, existing.status, "running");
      return;
    case "completed":
    case "failed": {
      adopt(ctx, await store.beginInvocation(ctx.instanceId, ctx.userInput));
      ctx.state.result = [];
      announce(ctx, null, "running");
      return;
    }
    case "stopped":
      throw new InstanceStateError(ctx.instanceId, "stopped", "running");
  }
}

/**
 * Normal end of a run: persist the state and output, then COMPLETED or FAILED (nothing reached END).
 * Returns synchronously when the store does: a durable store's group commit then commits the last
 * node's completion with the final status change, one commit for both.
 */
export function finishInstance(ctx: GraphContext, reachedEnd: boolean): Awaitable<void> {
  return chain(checkpoint(ctx), () =>
    chain(ctx.coordinator.instances.recordOutput(ctx.instanceId, ctx.version, ctx.state.result), () =>
      move(ctx, reachedEnd ? "completed" : "failed"),
    ),
  );
}

/**
 * Abnormal end: an interrupt or a pause parks the instance; stop ends it; an error fails it.
 * Synchronous when the store is, like `finishInstance`.
 */
export function settleInstance(ctx: GraphContext, error: unknown): Awaitable<void> {
  return chain(checkpoint(ctx), () => {
    if (isGraphInterrupt(error)) {
      // What the run waits for is written before the PAUSED status that makes it visible as waiting.
      const saved = ctx.beforeInterruptPause?.({ node: error.node, value: error.value });
      return chain(saved, () =>
        chain(move(ctx, "paused"), () => {
          ctx.observer?.onEvent({ type: "interrupt_raised", instanceId: ctx.instanceId, node: error.node, value: error.value });
        }),
      );
    }
    if (isGraphDrained(error)) {
      return chain(move(ctx, error.reason === "stop" ? "stopped" : "paused"), () => {
        ctx.observer?.onEvent({ type: "drained", instanceId: ctx.instanceId, reason: error.reason, finishing: [...error.finishing] });
      });
    }
    return move(ctx, "failed", error instanceof Error ? error.message : String(error));
  });
}

/** Saves the run's state, unless a failed node left a value its schema refuses in it (`stateSpoiled`). */
function checkpoint(ctx: GraphContext): Awaitable<void> {
  if (!ctx.stateSpoiled) return ctx.coordinator.checkpointState(ctx.instanceId, ctx.state);
}

/**
 * Where `to` can be reached from one status only (paused, completed: from running), a successful
 * transition tells the previous status and the instance is not read first.
 */
function move(ctx: GraphContext, to: InstanceStatus, error?: string): Awaitable<void> {
  const store = ctx.coordinator.instances;
  const only = ONLY_PREDECESSOR[to];
  if (only) return chain(store.transition(ctx.instanceId, to), () => announce(ctx, only, to, error));
  return chain(store.load(ctx.instanceId), (before) =>
    chain(store.transition(ctx.instanceId, to), () => announce(ctx, before?.status ?? "running", to, error)),
  );
}

/** The status a transition to each status must come from, where there is exactly one. */
const ONLY_PREDECESSOR = Object.fromEntries(
  INSTANCE_STATUSES.map((to) => {
    const from = INSTANCE_STATUSES.filter((s) => canTransition(s, to));
    return [to, from.length === 1 ? from[0] : null];
  }),
) as Record<InstanceStatus, InstanceStatus | null>;

function adopt(ctx: GraphContext, record: GraphInstanceRecord): void {
  ctx.instanceId = record.instanceId;
  ctx.version = record.version;
}

function announce(ctx: GraphContext, from: InstanceStatus | null, to: InstanceStatus, error?: string): void {
  ctx.observer?.onEvent({ type: "instance_status", instanceId: ctx.instanceId, version: ctx.version, from, to, ...(error === undefined ? {} : { error }) });
}
