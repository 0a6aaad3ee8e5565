import type { NodeContext } from "./context";

/**
 * The bridge from business layers into the engine. Only `beforeNode` / `afterNode` are invoked by
 * the engine (around every `execute`); everything else a subclass adds is dispatched explicitly by
 * nodes through `ctx.runtime`. Both may return nothing, so an idle runtime costs one call, no await.
 */
export class GraphRuntime {
  beforeNode(_ctx: NodeContext): void | Promise<void> {}
  afterNode(_ctx: NodeContext): void | Promise<void> {}
}

export const NOOP_RUNTIME = new GraphRuntime();
