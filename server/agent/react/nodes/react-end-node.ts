import type { NodeContext } from "../../../graph/context";
import { Node } from "../../../graph/node";
import { graphPayload } from "../../../graph/payload";
import { AGENT_ERROR_CODES, AgentError } from "../../errors";
import { ReactNode } from "../react-node-names";
import type { ReactGraphState } from "../react-graph-state";
import { reactRuntime } from "../react-graph-runtime";

/**
 * Reads the result AFTER built, runs FINALIZE_CONTENT over its content, dispatches END_NODE_TURN, emits
 * the completion event and hands the result to the engine's `__end__`.
 */
export class ReactEndNode extends Node<ReactGraphState> {
  constructor() {
    super(ReactNode.END, { description: "emit, mark completed" });
  }

  async execute(ctx: NodeContext<ReactGraphState>): Promise<void> {
    const rt = reactRuntime(ctx);
    const turn = ctx.state.turn;
    const result = turn.agentResult;
    if (!result) throw new AgentError(AGENT_ERROR_CODES.INVALID_STATE, "END reached without a result from AFTER");
    result.content = rt.deps.hooks.finalizeContent(turn, result.content);
    await rt.dispatchHook("END_NODE_TURN", turn, { result });
    rt.emit({ type: "turn_completed", turnId: turn.turnId, result });
    ctx.deliver(graphPayload({ content: result, source: ReactNode.END }), null);
  }
}
