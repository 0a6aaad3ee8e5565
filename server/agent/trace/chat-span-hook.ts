import type { HookContext } from "../hook/hook-context";
import { Hook, type AfterLlmResponseHook, type BeforeLlmHook } from "../hook/hook-contracts";
import { addUsage } from "../llm/token-usage";
import { GenAI, GenAIOperation } from "./genai-attributes";
import type { SpanAttributeValue } from "./span-record";
import type { SpanWriter } from "./span-writer";
import { CHAT_KEY, traceSessionOf } from "./trace-session";
import { usageAttributes } from "./usage-attributes";

export interface ChatSpanOptions {
  providerName: string;
  model: string;
  /** Prompt capture: record messages, system instructions and tool definitions on the span. */
  captureContent?: boolean;
}

/**
 * One span per LLM call: opened at BEFORE_LLM with the request, closed at AFTER_LLM_RESPONSE with the
 * finish reasons and the response's typed TokenUsage, which is also accumulated for the turn's root span.
 */
export class ChatSpanHook extends Hook implements BeforeLlmHook, AfterLlmResponseHook {
  constructor(
    private readonly writer: SpanWriter,
    private readonly options: ChatSpanOptions,
  ) {
    super();
  }

  beforeLlm(ctx: HookContext<"BEFORE_LLM">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    const { request } = ctx;
    const model = request.model ?? this.options.model;
    const content: Record<string, SpanAttributeValue> = this.options.captureContent
      ? {
          [GenAI.SYSTEM_INSTRUCTIONS]: JSON.stringify(request.messages.filter((m) => m.role === "system").map((m) => m.content)),
          [GenAI.INPUT_MESSAGES]: JSON.stringify(request.messages.filter((m) => m.role !== "system")),
          [GenAI.TOOL_DEFINITIONS]: JSON.stringify(request.tools.map((t) => ({ name: t.name, description: t.description }))),
        }
      : {};
    this.writer.start(session, ctx.turn, {
      key: CHAT_KEY,
      name: `${GenAIOperation.CHAT} ${model}`,
      kind: "client",
      parent: session.parentKey(),
      attributes: {
        [GenAI.OPERATION_NAME]: GenAIOperation.CHAT,
        [GenAI.PROVIDER_NAME]: this.options.providerName,
        [GenAI.REQUEST_MODEL]: model,
        ...(request.maxTokens !== undefined ? { [GenAI.REQUEST_MAX_TOKENS]: request.maxTokens } : {}),
        ...(request.temperature !== undefined ? { [GenAI.REQUEST_TEMPERATURE]: request.temperature } : {}),
        ...content,
      },
    });
  }

  afterLlmResponse(ctx: HookContext<"AFTER_LLM_RESPONSE">): void {
    const session = traceSessionOf(ctx.turn);
    if (!session) return;
    if (!ctx.response) {
      // A call that failed after streaming has its tokens (reported, or estimated); one that failed before, none.
      const used = ctx.usage && (ctx.usage.inputTokens > 0 || ctx.usage.outputTokens > 0) ? ctx.usage : undefined;
      if (used) session.usage = addUsage(session.usage, used);
      this.writer.end(session, CHAT_KEY, {
        attributes: { [GenAI.ERROR_TYPE]: ctx.failure?.error.code ?? "stream_failure", ...(used ? usageAttributes(used) : {}) },
        status: { code: "error", message: ctx.failure?.error.message },
      });
      return;
    }
    const { response } = ctx;
    session.usage = addUsage(session.usage, response.usage);
    const output: Record<string, SpanAttributeValue> = this.options.captureContent
      ? { [GenAI.OUTPUT_MESSAGES]: JSON.stringify([{ role: "assistant", content: response.content, toolCalls: response.toolCalls }]) }
      : {};
    this.writer.end(session, CHAT_KEY, {
      attributes: { [GenAI.RESPONSE_FINISH_REASONS]: [response.finishReason], ...usageAttributes(response.usage), ...output },
    });
  }
}
