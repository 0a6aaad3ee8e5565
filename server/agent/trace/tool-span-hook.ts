import type { HookContext } from "../hook/hook-context";
import { Hook, type AfterToolExecutionHook, type BeforeToolExecutionHook } from "../hook/hook-contracts";
import { GenAI, GenAIOperation, Modex } from "./genai-attributes";
import type { SpanWriter } from "./span-writer";
import { TOOL_KEY, traceSessionOf } from "./trace-session";

/** One span per tool batch, from BEFORE_TOOL_EXECUTION to AFTER_TOOL_EXECUTION. */
export class ToolSpanHook extends Hook implements BeforeToolExecutionHook, AfterToolExecutionHook {
  constructor(private readonly writer: SpanWriter) {
    super();
  }

  beforeToolExecution(ctx: HookContext<"BEFORE_TOOL_EXECUTION">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    const names = ctx.calls.map((c) => c.name);
    this.writer.start(session, ctx.turn, {
      key: TOOL_KEY,
      name: names.length === 1 ? `${GenAIOperation.EXECUTE_TOOL} ${names[0]}` : GenAIOperation.EXECUTE_TOOL,
      parent: session.parentKey(),
      attributes: {
        [GenAI.OPERATION_NAME]: GenAIOperation.EXECUTE_TOOL,
        [Modex.TOOL_NAMES]: names,
        ...(ctx.calls.length === 1 ? { [GenAI.TOOL_NAME]: names[0], [GenAI.TOOL_CALL_ID]: ctx.calls[0].id } : {}),
      },
    });
  }

  afterToolExecution(ctx: HookContext<"AFTER_TOOL_EXECUTION">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    const errors = ctx.results.filter((r) => r.isError).length;
    const record = this.writer.end(session, TOOL_KEY, {
      attributes: { [Modex.TOOL_ERROR_COUNT]: errors },
      status: errors > 0 && errors === ctx.results.length ? { code: "error", message: "every tool call failed" } : { code: "ok" },
    });
    session.lastToolBatchSpanId = record?.spanId;
  }
}
