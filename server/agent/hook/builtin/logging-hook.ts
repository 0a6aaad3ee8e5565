import type { AgentLogger } from "../../logger";
import type { HookContext } from "../hook-context";
import { Hook, type AfterLlmResponseHook, type AfterToolExecutionHook, type BeforeToolExecutionHook } from "../hook-contracts";

/** Per-session logging of LLM responses and tool executions. */
export class LoggingHook extends Hook implements AfterLlmResponseHook, BeforeToolExecutionHook, AfterToolExecutionHook {
  constructor(private readonly logger: AgentLogger) {
    super();
  }

  afterLlmResponse(ctx: HookContext<"AFTER_LLM_RESPONSE">): void {
    const fields = { sessionId: ctx.turn.sessionId, turnId: ctx.turn.turnId, iteration: ctx.turn.iteration };
    if (!ctx.response) {
      this.logger.warn(`llm stream failed: ${ctx.failure?.error.message ?? "unknown"}`, fields);
      return;
    }
    this.logger.info("llm response", {
      ...fields,
      finishReason: ctx.response.finishReason,
      chars: ctx.response.content.length,
      toolCalls: ctx.response.toolCalls.map((c) => c.name),
      usage: ctx.response.usage,
    });
  }

  beforeToolExecution(ctx: HookContext<"BEFORE_TOOL_EXECUTION">): void {
    this.logger.info("tool batch start", { sessionId: ctx.turn.sessionId, turnId: ctx.turn.turnId, tools: ctx.calls.map((c) => c.name) });
  }

  afterToolExecution(ctx: HookContext<"AFTER_TOOL_EXECUTION">): void {
    this.logger.info("tool batch done", {
      sessionId: ctx.turn.sessionId,
      turnId: ctx.turn.turnId,
      results: ctx.results.map((r) => ({ name: r.name, isError: r.isError, chars: r.content.length })),
    });
  }
}
