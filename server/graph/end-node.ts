import type { NodeContext } from "./context";
import { END } from "./names";
import { Node, type DeliveredInput } from "./node";
import { graphPayload, isGraphPayload, type GraphPayload } from "./payload";

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
    for (const row of input) ctx.state.result.push(toPayload(row));
  }
}

function toPayload(row: DeliveredInput): GraphPayload {
  // A payload-shaped plain object (e.g. read back from a store) is re-frozen, never kept mutable.
  if (isGraphPayload(row.content)) return Object.isFrozen(row.content) ? row.content : graphPayload(row.content);
  return graphPayload({ content: row.content, source: row.source });
}
