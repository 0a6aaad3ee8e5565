import { drainControlChannel } from "../../control/drain-control-channel";
import type { ControlChannel } from "../../control/in-memory-control-channel";
import type { ToolResult } from "../../tools/tool-result";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor";

/**
 * TOOL_CALL: drains the control channel before each tool call, so a CANCEL_TURN stops the turn before
 * the next tool runs (AgentCancelledError propagates through the chain untouched).
 */
export class ControlDrainInterceptor extends Interceptor {
  constructor(private readonly channel: ControlChannel) {
    super();
  }

  aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    drainControlChannel(this.channel, inv.turn);
    return next(inv);
  }
}
