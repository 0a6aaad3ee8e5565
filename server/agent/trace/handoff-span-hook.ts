import type { HookContext } from "../hook/hook-context";
import { AfterToolExecutionHook } from "../hook/hook-contracts";
import { GenAI, Modex } from "./genai-attributes";
import type { SpanWriter } from "./span-writer";
import { traceSessionOf } from "./trace-session";

/**
 * A span per subagent handoff: a call to one of `handoffTools` in the batch, parented to the tool batch
 * span (so it must run after ToolSpanHook, which the tier order guarantees).
 */
export class HandoffSpanHook extends AfterToolExecutionHook {
  private readonly handoffTools: ReadonlySet<string>;

  constructor(
    private readonly writer: SpanWriter,
    handoffTools: readonly string[] = ["delegate_task", "handoff"],
  ) {
    super();
    this.handoffTools = new Set(handoffTools);
  }

  afterToolExecution(ctx: HookContext<"AFTER_TOOL_EXECUTION">): void {
    const session = traceSessionOf(ctx.turn);
    const batchSpanId = session?.lastToolBatchSpanId;
    if (!session || !batchSpanId) return;
    for (const result of ctx.results) {
      if (!this.handoffTools.has(result.name)) continue;
      const key = `handoff:${result.callId}`;
      this.writer.start(session, ctx.turn, {
        key,
        name: `handoff ${result.name}`,
        parentSpanId: batchSpanId,
        attributes: { [GenAI.TOOL_NAME]: result.name, [GenAI.TOOL_CALL_ID]: result.callId, [Modex.TOOL_ERROR_COUNT]: result.isError ? 1 : 0 },
      });
      this.writer.end(session, key, { status: result.isError ? { code: "error", message: "handoff failed" } : { code: "ok" } });
    }
  }
}
