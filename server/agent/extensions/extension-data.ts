import type { ApprovalDecision, ApprovalTransaction } from "../approval/approval-types";
import type { ChatMessage, LlmRequest, ToolCall } from "../llm/messages";
import type { TokenUsage } from "../llm/token-usage";
import type { ToolResult } from "../tools/tool-result";
import type { ExtensionPoint } from "./extension-point";

/** The request settings beside the messages: model, token limit, temperature, the tools offered. */
export type LlmParams = Readonly<Omit<LlmRequest, "messages">>;

/** Where in the turn a prompt is being built or a chunk streamed. */
export interface IterationContext {
  readonly iteration: number;
}

/** Which streamed text a DURING_LLM_STREAMING chunk is: the answer's, or the model's reasoning. */
export type StreamChannel = "text" | "reasoning";

/**
 * The data keys the caller puts in `ctx.data` before invoking each point (the spec's "context key(s)"
 * column, in camel case). Extensions may add keys of their own for later extensions to read.
 *
 * A "prompt" here is a list of chat messages, not one string: that is what Modex's models receive.
 */
export interface ExtensionData {
  BEFORE_MESSAGE_PROCESS: { message: string };
  BEFORE_PROMPT_BUILD: { context: IterationContext & { readonly messages: readonly ChatMessage[] } };
  /** `prompt`: the conversation the model will see, without the system prompt. */
  AFTER_PROMPT_BUILD: { prompt: ChatMessage[] };
  /** `prompt`: the full message list, system prompt included. */
  BEFORE_LLM_CALL: { prompt: ChatMessage[]; llmParams: LlmParams };
  /**
   * `chunk`: streamed text, before anyone downstream (the browser included) sees it; `context.channel`:
   * the answer's text or the model's reasoning. `context.final`: this channel's run of chunks is ending
   * and `chunk` is "": a filter that held text back returns it now.
   */
  DURING_LLM_STREAMING: { chunk: string; context: IterationContext & { readonly final: boolean; readonly channel: StreamChannel } };
  /** `response`: the assistant's text; `usage`: the tokens this model call reported. */
  AFTER_LLM_RESPONSE: { response: string; llmParams: LlmParams; usage: TokenUsage };
  SYSTEM_PROMPT_READY: { systemPrompt: string; session: { readonly sessionId: string; readonly turnId?: string } };
  FULL_PROMPT_READY: { prompt: ChatMessage[]; llmParams: LlmParams; context: IterationContext };
  /** `toolCalls`: the calls about to run; set a new list to rewrite or drop them. */
  BEFORE_TOOL_PARSE: { llmResponse: string; toolCalls: ToolCall[] };
  BEFORE_TOOL_EXECUTE: { toolCall: ToolCall; toolName: string };
  AFTER_TOOL_EXECUTE: { toolResult: ToolResult; toolCall: ToolCall };
  TOOL_ERROR: { error: unknown; toolCall: ToolCall };
  /** `prompt`: the conversation so far. */
  BEFORE_CONTINUATION: { prompt: readonly ChatMessage[]; context: IterationContext };
  AFTER_CONTINUATION: { response: string };
  LOOP_COMPLETE: { finalResponse: string };
  /** `suggestion`: what the model will read about the error. */
  REPAIRABLE_ERROR: { error: string; suggestion: string };
  CRITICAL_ERROR: { error: unknown };
  BEFORE_RESPONSE_SEND: { response: string };
  /**
   * `cutUsage`: the tokens of the model call a stop (or an interrupting message) cut short, which no
   * AFTER_LLM_RESPONSE reported — usually estimated (`estimated: true`); absent when no call was cut.
   */
  AFTER_RESPONSE_SEND: { cutUsage?: TokenUsage };
  SESSION_CREATE: { sessionId: string; context: Record<string, unknown> };
  SESSION_DESTROY: { sessionId: string; messageCount: number; context: Record<string, unknown> };
  /** `query`: a knowledge-base grep's regex, or the file a read names; `action` says which. */
  BEFORE_RAG_QUERY: { query: string; action: string };
  /** `results`: one `{ text, source }` per grep hit, or one for the page read. */
  AFTER_RAG_RESULTS: { results: Array<Record<string, unknown>>; citations: unknown[]; query: string; action: string };
  APPROVAL_REQUIRED: { toolCall: ToolCall; message: string };
  APPROVAL_RECEIVED: { transaction: ApprovalTransaction; decision: ApprovalDecision };
}

/**
 * What an extension method returns at each point (the spec's "return type" column). `void` is the spec's
 * None: "leave the value unchanged" for a TRANSFORM, "go on" for a CANCELLABLE, nothing collected.
 */
export interface ExtensionReturns {
  BEFORE_MESSAGE_PROCESS: void;
  BEFORE_PROMPT_BUILD: void;
  AFTER_PROMPT_BUILD: ChatMessage[] | void;
  /** `false` cancels the call. */
  BEFORE_LLM_CALL: boolean | void;
  /** A string replaces the chunk (a TRANSFORM in Modex, so filters compose); "" holds it back. */
  DURING_LLM_STREAMING: string | void;
  AFTER_LLM_RESPONSE: string | void;
  SYSTEM_PROMPT_READY: string | void;
  FULL_PROMPT_READY: ChatMessage[] | void;
  BEFORE_TOOL_PARSE: string | void;
  /** `false` cancels the tool call. */
  BEFORE_TOOL_EXECUTE: boolean | void;
  AFTER_TOOL_EXECUTE: ToolResult | void;
  /** A repair: a string is what the model reads instead of the raw error; a ToolResult for the call replaces it. */
  TOOL_ERROR: string | ToolResult | void;
  /** `false` stops the loop. */
  BEFORE_CONTINUATION: boolean | void;
  AFTER_CONTINUATION: string | void;
  LOOP_COMPLETE: string | void;
  /** A better suggestion for the model; the wiring appends the collected ones to what it reads. */
  REPAIRABLE_ERROR: string | void;
  CRITICAL_ERROR: void;
  BEFORE_RESPONSE_SEND: string | void;
  AFTER_RESPONSE_SEND: void;
  SESSION_CREATE: void;
  SESSION_DESTROY: void;
  BEFORE_RAG_QUERY: string | void;
  AFTER_RAG_RESULTS: Array<Record<string, unknown>> | void;
  /** `true` approves the call without asking. */
  APPROVAL_REQUIRED: boolean | void;
  APPROVAL_RECEIVED: void;
}

// Both maps must name every point; adding a point without its data and return type breaks the build here.
type Exhaustive<T extends { [P in ExtensionPoint]: unknown }> = T;
type CheckedData = Exhaustive<ExtensionData>;
type CheckedReturns = Exhaustive<ExtensionReturns>;
