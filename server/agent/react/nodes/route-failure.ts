import type { NodeContext } from "../../../graph/context";
import { isGraphBubbleUp } from "../../../graph/errors";
import { AGENT_ERROR_CODES, describeError, isAgentError, mustPropagate } from "../../errors";
import { closePendingToolCalls } from "../close-pending-tool-calls";
import { ReactNode } from "../react-node-names";
import type { ReactGraphState } from "../react-graph-state";

/**
 * The LLM and TOOL nodes' error edge to AFTER. Control flow passes through untouched — engine signals
 * (GraphInterrupt: the approval suspend), AgentControlError and cancellation; any other failure is
 * recorded on the turn and routed to AFTER, so result construction runs on this exit too.
 */
export async function routeFailureToAfter(ctx: NodeContext<ReactGraphState>, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    if (isGraphBubbleUp(e) || mustPropagate(e)) throw e;
    ctx.discardDelivers(); // what the body delivered before it failed
    ctx.state.turn.failure = {
      code: isAgentError(e) ? e.code : AGENT_ERROR_CODES.INVALID_STATE,
      message: describeError(e),
      node: ctx.binding.name,
    };
    closePendingToolCalls(ctx.state.turn, `the turn failed: ${describeError(e)}`);
    ctx.deliver(null, ReactNode.AFTER);
  }
}
