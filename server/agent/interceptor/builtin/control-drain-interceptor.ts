import { drainControlChannel } from "../../control/drain-control-channel";
import type { ControlChannel } from "../../control/in-memory-control-channel";
import { watchCancel } from "../../control/watch-cancel";
import type { ToolResult } from "../../tools/tool-result";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor";

/**
 * TOOL_CALL: drains the control channel before each tool call, so a CANCEL_TURN stops the turn before
 * the next tool runs (AgentCancelledError propagates through the chain untouched). While the tool runs it
 * keeps watching (watchCancel): a CANCEL_TURN for this turn aborts the tool's signal and ends the call
 * with AgentCancelledError at once, so a Stop does not wait up to the tool deadline for a long tool (an
 * MCP call, a slow fetch) to finish.
 */
export class ControlDrainInterceptor extends Interceptor {
  constructor(private readonly channel: ControlChannel) {
    super();
  }

  async aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    drainControlChannel(this.channel, inv.turn);
    const watch = watchCancel(this.channel, inv.turn, inv.signal);
    try {
      const running = next({ ...inv, signal: watch.signal });
      running.catch(() => {}); // once cancelled, the tool's own outcome no longer matters
      const result = await Promise.race([running, watch.cancelled]);
      // A command drained as the tool finished is not lost: it cancels the turn now.
      if (watch.error !== undefined) throw watch.error;
      return result;
    } finally {
      watch.stop();
    }
  }
}
