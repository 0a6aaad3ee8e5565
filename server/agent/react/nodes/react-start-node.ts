import type { NodeContext } from "../../../graph/context";
import { Node } from "../../../graph/node";
import { drainControlChannel } from "../../control/drain-control-channel";
import { ReactNode } from "../react-node-names";
import type { ReactGraphState } from "../react-graph-state";
import { reactRuntime } from "../react-graph-runtime";

/**
 * Fresh-turn entry: appends the user's message, dispatches START_NODE_TURN, drains the control channel
 * (the turn-start safe point) and routes to BEFORE. A resumed run never comes here: the engine's entry
 * node reads `state.resumeTarget` and delivers straight to TOOL, so nothing before TOOL runs again.
 */
export class ReactStartNode extends Node<ReactGraphState> {
  constructor() {
    super(ReactNode.START, { description: "route: fresh turn" });
  }

  async execute(ctx: NodeContext<ReactGraphState>): Promise<void> {
    const rt = reactRuntime(ctx);
    const turn = ctx.state.turn;
    const input = ctx.userInput.content;
    if (typeof input === "string" && input.length > 0) turn.messages.push({ role: "user", content: input });
    await rt.dispatchHook("START_NODE_TURN", turn, { resumed: false });
    drainControlChannel(rt.deps.channel, turn);
    ctx.deliver(null, ReactNode.BEFORE);
  }
}
