import { Interceptor, type LlmStreamInvocation, type NextLlmStream } from "../interceptor/interceptor";
import type { ToolCall } from "../llm/messages";
import type { LLMStreamEvent } from "../llm/stream-events";
import type { StreamChannel } from "./extension-data";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";
import { stringOr, toolCallsOr } from "./value-guards";

const CHANNEL_OF = { text_delta: "text", reasoning_delta: "reasoning" } as const satisfies Record<string, StreamChannel>;

/**
 * The points that see a model's output as it streams, in the LLM_STREAM scope, so what they change is
 * what everyone downstream sees (the assembled response, the browser, the event log):
 * - DURING_LLM_STREAMING, once per chunk of the answer's text and of the model's reasoning
 *   (`context.channel`): the chunk the extensions return is what passes on, so a filter (secret
 *   masking) acts before anyone sees the text. A filter may hold text back (return ""); when a run of
 *   one channel's chunks ends (the other channel starts, or the stream ends) it gets one last call for
 *   that channel, `chunk: ""` and `context.final`, to return what it held, so a filter that keeps one
 *   buffer per turn never mixes reasoning into the answer. A failed stream's partial content and
 *   reasoning become the filtered text.
 * - BEFORE_TOOL_PARSE, once per response with tool calls, before the terminal event: the calls are held
 *   until then and the list in `ctx.data.toolCalls` afterwards is what is emitted (rewritten or dropped;
 *   accepted only as valid calls). Modex's models send calls already parsed, so `llmResponse` (the text
 *   streamed before them) is for reading only.
 * Each chunk waits for the extensions, so they should be quick.
 */
export class ExtensionStreamInterceptor extends Interceptor {
  constructor(private readonly invoker: ExtensionInvoker) {
    super();
  }

  async *aroundLlmStream(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent> {
    const filtersText = this.invoker.handles("DURING_LLM_STREAMING");
    const parsesCalls = this.invoker.handles("BEFORE_TOOL_PARSE");
    if (!filtersText && !parsesCalls) {
      yield* next(inv);
      return;
    }
    const passed: Record<StreamChannel, string> = { text: "", reasoning: "" };
    let open: StreamChannel | null = null; // the channel whose filters may hold text back
    const calls: ToolCall[] = [];
    for await (const event of next(inv)) {
      if ((event.type === "text_delta" || event.type === "reasoning_delta") && filtersText) {
        const channel = CHANNEL_OF[event.type];
        if (open && open !== channel) yield* this.flush(inv, open, passed);
        open = channel;
        const text = await this.filter(inv, event.text, channel, false);
        passed[channel] += text;
        if (text) yield { type: event.type, text };
      } else if (event.type === "text_delta") {
        passed.text += event.text;
        yield event;
      } else if (event.type === "tool_call_complete" && parsesCalls) {
        calls.push(event.call);
      } else if (event.type === "finish" || event.type === "stream_failure") {
        if (open) yield* this.flush(inv, open, passed);
        for (const call of calls.length ? await this.parsed(inv, passed.text, calls) : []) yield { type: "tool_call_complete", call };
        yield event.type === "stream_failure" && filtersText ? { ...event, partial: { ...event.partial, content: passed.text, reasoning: passed.reasoning } } : event;
      } else {
        yield event;
      }
    }
  }

  /** The last call of a run of `channel`'s chunks: what the filters held back passes on now. */
  private async *flush(inv: LlmStreamInvocation, channel: StreamChannel, passed: Record<StreamChannel, string>): AsyncIterable<LLMStreamEvent> {
    const rest = await this.filter(inv, "", channel, true);
    passed[channel] += rest;
    if (rest) yield { type: channel === "text" ? "text_delta" : "reasoning_delta", text: rest };
  }

  private async filter(inv: LlmStreamInvocation, chunk: string, channel: StreamChannel, final: boolean): Promise<string> {
    const data = { chunk, context: { iteration: inv.turn.iteration, final, channel } };
    return stringOr(await this.invoker.invoke("DURING_LLM_STREAMING", turnExtensionContext(inv.turn, "DURING_LLM_STREAMING", data)), chunk);
  }

  private async parsed(inv: LlmStreamInvocation, text: string, calls: ToolCall[]): Promise<ToolCall[]> {
    const ctx = turnExtensionContext(inv.turn, "BEFORE_TOOL_PARSE", { llmResponse: text, toolCalls: structuredClone(calls) });
    await this.invoker.invoke("BEFORE_TOOL_PARSE", ctx);
    return toolCallsOr(ctx.get("toolCalls"), calls);
  }
}
