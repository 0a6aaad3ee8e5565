import type { NodeContext } from "../../../graph/context";
import { Node } from "../../../graph/node";
import { buildTurnResult } from "../build-turn-result";
import { continuationGate } from "../continuation-gate";
import { ReactNode } from "../react-node-names";
import type { ReactGraphState } from "../react-graph-state";
import { reactRuntime } from "../react-graph-runtime";

/**
 * Every exit of a turn attempt passes here: builds the preliminary AgentResult into `turn.agentResult`,
 * dispatches AFTER_TURN (hooks may rewrite the result or request a continuation), then runs the
 * continuation gate: another attempt → BEFORE, otherwise → END.
 */
export class AfterTurnNode extends Node<ReactGraphState> {
  constructor() {
    super(ReactNode.AFTER, { description: "result + continuation gate" });
  }

  async execute(ctx: NodeContext<ReactGraphState>): Promise<void> {
    const turn = ctx.state.turn;
    const result = buildTurnResult(turn);
    turn.agentResult = result;
    await reactRuntime(ctx).dispatchHook("AFTER_TURN", turn, { result });
    ctx.deliver(null, continuationGate(turn) ? ReactNode.BEFORE : ReactNode.END);
  }
}
