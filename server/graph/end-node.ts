import type { NodeContext } from "./context";
import { END } from "./names";
import { Node, type DeliveredInput } from "./node";
import { toGraphPayload } from "./payload";

/**
 * The exit node. Aggregates every delivered payload into `state.result` in delivery order. Always
 * ON_ALL_PREDS, so parallel branches concatenate instead of overwriting each other.
 */
export class EndNode extends Node {
  constructor() {
    // compile() forces ON_ALL_PREDS on whatever END a graph has: an END that fired per branch would split the result.
    super(END, { triggerMode: "ON_ALL_PREDS" });
  }

  execute(ctx: NodeContext, input: readonly DeliveredInput[]): void {
    // The engine's own field, written past the write check (`graph.state`): it builds every payload itself.
    const result = ctx.graph.state.result;
    for (const row of input) result.push(toGraphPayload(row.content, row.sourceNode));
  }
}
