import { AGENT_ERROR_CODES, abortErrorFrom } from "../../errors";
import { LlmProvider, type LlmStreamOptions } from "../llm-provider";
import type { LlmRequest } from "../messages";
import { streamFailure, type FinishReason, type LLMStreamEvent } from "../stream-events";
import { ZERO_USAGE, type TokenUsage } from "../token-usage";

/** One scripted model reply. */
export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ name: string; args?: unknown; id?: string }>;
  usage?: Partial<TokenUsage>;
  /** Send no usage at all (as a server without stream usage does): the client estimates it. */
  noUsage?: boolean;
  /** Defaults to "tool_calls" when the reply calls tools, else "stop". */
  finishReason?: FinishReason;
  /** Reply with a StreamFailure instead (after any text). */
  fail?: { code?: string; message: string };
  /** End the stream with no terminal event (to exercise the assembler's EOF rule). */
  truncate?: boolean;
}

export type Script = ScriptedReply[] | ((request: LlmRequest, index: number) => ScriptedReply | undefined);

/**
 * A deterministic model: each stream() call plays the next reply of the script (text in word-sized
 * deltas, then tool calls, usage and the terminal event). Runs offline; for demos and tests. When the
 * script runs out it answers with a StreamFailure (SCRIPT_EXHAUSTED).
 */
export class ScriptedProvider extends LlmProvider {
  readonly name = "scripted";
  /** Every request received, in order. */
  readonly requests: LlmRequest[] = [];

  constructor(private readonly script: Script) {
    super();
  }

  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    const index = this.requests.length;
    // A shallow copy: messages are appended, never mutated, so each request keeps its own view cheaply.
    this.requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
    const reply = typeof this.script === "function" ? this.script(request, index) : this.script[index];
    if (!reply) {
      yield streamFailure(AGENT_ERROR_CODES.SCRIPT_EXHAUSTED, `the script has no reply #${index + 1}`);
      return;
    }
    for (const event of replyEvents(reply, index)) {
      if (options.signal.aborted) throw abortErrorFrom(options.signal);
      yield event;
      await Promise.resolve(); // let consumers and control commands interleave between events
    }
  }
}

function* replyEvents(reply: ScriptedReply, index: number): Generator<LLMStreamEvent> {
  for (const chunk of chunks(reply.reasoning)) yield { type: "reasoning_delta", text: chunk };
  for (const chunk of chunks(reply.text)) yield { type: "text_delta", text: chunk };
  if (reply.fail) {
    yield streamFailure(reply.fail.code ?? AGENT_ERROR_CODES.PROVIDER_FAILED, reply.fail.message, {
      content: reply.text ?? "",
      reasoning: reply.reasoning ?? "",
      toolCalls: [],
    });
    return;
  }
  const calls = reply.toolCalls ?? [];
  for (const [i, call] of calls.entries()) {
    yield { type: "tool_call_complete", call: { id: call.id ?? `call_${index + 1}_${i + 1}`, name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
  }
  if (!reply.noUsage) yield { type: "usage_snapshot", usage: { ...ZERO_USAGE, ...reply.usage } };
  if (reply.truncate) return;
  yield { type: "finish", reason: reply.finishReason ?? (calls.length ? "tool_calls" : "stop") };
}

/** Splits text into word-sized deltas that concatenate back to the original. */
function chunks(text: string | undefined): string[] {
  if (!text) return [];
  return text.match(/\S+\s*|\s+/g) ?? [text];
}
