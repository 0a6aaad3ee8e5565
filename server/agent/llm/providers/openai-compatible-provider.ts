import OpenAI, { APIUserAbortError } from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { z } from "zod";
import { AGENT_ERROR_CODES, abortErrorFrom, describeError } from "../../errors";
import { LlmProvider, type LlmStreamOptions } from "../llm-provider";
import type { ChatMessage, LlmRequest, ToolSpec } from "../messages";
import { PartialOutputTracker } from "../partial-output-tracker";
import { streamFailure, type FinishReason, type LLMStreamEvent } from "../stream-events";
import type { TokenUsage } from "../token-usage";

/** Works with any server speaking OpenAI chat completions: OpenAI, Ollama, vLLM, llama.cpp's server. */
export const OpenAICompatibleConfigSchema = z.object({
  baseURL: z.string().url(),
  model: z.string().min(1),
  /** Local servers accept any key; the SDK requires a non-empty one. */
  apiKey: z.string().default("not-needed"),
  maxRetries: z.number().int().nonnegative().default(0),
  timeoutMs: z.number().int().positive().default(600_000),
  /** Ask the server for a final usage chunk (stream_options.include_usage). Some servers reject it. */
  includeUsage: z.boolean().default(true),
});
export type OpenAICompatibleConfig = z.input<typeof OpenAICompatibleConfigSchema>;

interface ToolCallBuffer {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Streams chat completions through the official `openai` SDK and maps them onto the closed event union:
 * content → TextDelta, `reasoning_content`/`reasoning` (vLLM, DeepSeek, Ollama) → ReasoningDelta, tool-call
 * fragments → one ToolCallComplete per call once the choice finishes, usage (with reasoning and cached
 * tokens) → UsageSnapshot, then Finish. HTTP and connection errors become a StreamFailure; an abort
 * through the signal is re-raised as an AbortError.
 */
export class OpenAICompatibleProvider extends LlmProvider {
  readonly name = "openai-compatible";
  private readonly client: OpenAI;
  private readonly config: z.output<typeof OpenAICompatibleConfigSchema>;

  constructor(config: OpenAICompatibleConfig) {
    super();
    this.config = OpenAICompatibleConfigSchema.parse(config);
    this.client = new OpenAI({
      baseURL: this.config.baseURL,
      apiKey: this.config.apiKey,
      maxRetries: this.config.maxRetries,
      timeout: this.config.timeoutMs,
    });
  }

  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    const partial = new PartialOutputTracker();
    const tracked = (event: LLMStreamEvent): LLMStreamEvent => (partial.observe(event), event);
    try {
      const chunks = await this.client.chat.completions.create(this.body(request), { signal: options.signal });
      const toolCalls = new Map<number, ToolCallBuffer>();
      let finish: FinishReason | undefined;
      for await (const chunk of chunks) {
        for (const event of chunkEvents(chunk, toolCalls)) yield tracked(event);
        const reason = chunk.choices[0]?.finish_reason;
        if (reason) {
          finish = mapFinishReason(reason);
          for (const event of flushToolCalls(toolCalls)) yield tracked(event);
        }
      }
      // The SDK may end an aborted stream quietly; an abort is still an abort.
      if (options.signal.aborted) throw abortErrorFrom(options.signal);
      // A stream that never reported a finish reason ends without a terminal event: the assembler
      // turns that into a StreamFailure.
      if (finish) yield { type: "finish", reason: finish };
    } catch (e) {
      if (e instanceof APIUserAbortError || options.signal.aborted) throw abortErrorFrom(options.signal);
      yield streamFailure(AGENT_ERROR_CODES.PROVIDER_FAILED, describeError(e), partial.snapshot());
    }
  }

  private body(request: LlmRequest): ChatCompletionCreateParamsStreaming {
    return {
      model: request.model ?? this.config.model,
      messages: request.messages.map(toOpenAIMessage),
      ...(request.tools.length ? { tools: request.tools.map(toOpenAITool) } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      stream: true,
      ...(this.config.includeUsage ? { stream_options: { include_usage: true } } : {}),
    };
  }
}

function* chunkEvents(chunk: ChatCompletionChunk, toolCalls: Map<number, ToolCallBuffer>): Generator<LLMStreamEvent> {
  const delta = chunk.choices[0]?.delta as (ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null }) | undefined;
  const reasoning = delta?.reasoning_content ?? delta?.reasoning;
  if (reasoning) yield { type: "reasoning_delta", text: reasoning };
  if (delta?.content) yield { type: "text_delta", text: delta.content };
  for (const fragment of delta?.tool_calls ?? []) {
    const buffer = toolCalls.get(fragment.index) ?? { id: "", name: "", arguments: "" };
    if (fragment.id) buffer.id = fragment.id;
    if (fragment.function?.name) buffer.name += fragment.function.name;
    if (fragment.function?.arguments) buffer.arguments += fragment.function.arguments;
    toolCalls.set(fragment.index, buffer);
  }
  if (chunk.usage) yield { type: "usage_snapshot", usage: mapUsage(chunk.usage) };
}

function* flushToolCalls(toolCalls: Map<number, ToolCallBuffer>): Generator<LLMStreamEvent> {
  const ordered = [...toolCalls.entries()].sort(([a], [b]) => a - b);
  for (const [index, call] of ordered) {
    yield { type: "tool_call_complete", call: { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments || "{}" } };
  }
  toolCalls.clear();
}

function mapUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): TokenUsage {
  const details = usage.prompt_tokens_details as { cached_tokens?: number; cache_creation_tokens?: number } | undefined;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    cacheReadTokens: details?.cached_tokens ?? 0,
    cacheCreationTokens: details?.cache_creation_tokens ?? 0,
  };
}

function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "tool_calls":
    case "length":
    case "content_filter":
      return reason;
    case "function_call":
      return "tool_calls";
    default:
      return "other";
  }
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    default: {
      const unknownMessage: never = message;
      throw new Error(`unknown message ${JSON.stringify(unknownMessage)}`);
    }
  }
}

function toOpenAITool(tool: ToolSpec): ChatCompletionTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}
