import { drainControlChannel } from "../../control/drain-control-channel";
import type { ControlChannel } from "../../control/in-memory-control-channel";
import type { ToolResult } from "../../tools/tool-result";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor";

/**
 * TOOL_CALL: drains the control channel before each tool call, so a CANCEL_TURN stops the turn before
 * the next tool runs (AgentCancelledError propagates through the chain untouched). While the tool runs it
 * also drains on every command sent for the session (a channel that can `watch`): a CANCEL_TURN for this
 * turn aborts the tool's signal and ends the call with AgentCancelledError at once, so a Stop does not
 * wait up to the tool deadline for a long tool (an MCP call, a slow fetch) to finish.
 */
export class ControlDrainInterceptor extends Interceptor {
  constructor(private readonly channel: ControlChannel) {
    super();
  }

  async aroundToolCall(inv: ToolInvocation, next: NextToolCall): Promise<ToolResult> {
    drainControlChannel(this.channel, inv.turn);
    if (!this.channel.watch) return next(inv);
    const cancel = new AbortController();
    let reject: (e: unknown) => void = () => {};
    const cancelled = new Promise<never>((_, r) => (reject = r));
    const unwatch = this.channel.watch(inv.turn.sessionId, () => {
      try {
        drainControlChannel(this.channel, inv.turn);
      } catch (e) {
        reject(e); // first, so the race settles with the cancel, not the tool's abort it causes
        cancel.abort(e);
      }
    });
    try {
      const running = next({ ...inv, signal: AbortSignal.any([inv.signal, cancel.signal]) });
      running.catch(() => {}); // once cancelled, the tool's own outcome no longer matters
      return await Promise.race([running, cancelled]);
    } finally {
      unwatch();
    }
  }
}
