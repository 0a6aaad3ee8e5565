import type { NodeContext } from "../../../graph/context";
import { Node } from "../../../graph/node";
import { ReactNode } from "../react-node-names";
import type { ReactGraphState } from "../react-graph-state";
import { reactRuntime } from "../react-graph-runtime";

/** Opens a turn attempt: counts it, resets the iteration budget, dispatches BEFORE_TURN, routes to LLM. */
export class BeforeTurnNode extends Node<ReactGraphState> {
  constructor() {
    super(ReactNode.BEFORE, { description: "new turn attempt" });
  }

  async execute(ctx: NodeContext<ReactGraphState>): Promise<void> {
    const turn = ctx.state.turn;
    turn.turnAttempt += 1;
    turn.iteration = 0;
    turn.iterationLimitHit = false;
    turn.failure = undefined;
    await reactRuntime(ctx).dispatchHook("BEFORE_TURN", turn, { attempt: turn.turnAttempt });
    ctx.deliver(null, ReactNode.LLM);
  }
}
