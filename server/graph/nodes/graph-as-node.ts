import type { CompiledGraph } from "../compiled-graph";
import type { NodeContext } from "../context";
import { Node, type DeliveredInput, type NodeOptions } from "../node";
import type { GraphStateSchema } from "../state";

/**
 * Embeds a compiled graph under a name of the outer graph's choosing, so one compiled fragment can
 * be reused. The inner graph shares the outer state and delivers its completion signal downstream.
 */
export class GraphAsNode<S extends GraphStateSchema = GraphStateSchema> extends Node<S> {
  constructor(
    name: string,
    readonly embedded: CompiledGraph<S>,
    options: NodeOptions = {},
  ) {
    super(name, options);
  }

  execute(ctx: NodeContext<S>, input: readonly DeliveredInput[]): Promise<void> {
    return this.embedded.execute(ctx, input);
  }

  /** The same wrapper around a re-bound inner graph (see CompiledGraph.withNodeIds). */
  rebind(graph: CompiledGraph<S>): GraphAsNode<S> {
    return new GraphAsNode(this.name, graph, { triggerMode: this.triggerMode, description: this.description });
  }
}
