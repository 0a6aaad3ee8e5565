import { Interceptor, type LlmStreamInvocation, type NextLlmStream } from "../interceptor/interceptor";
import type { ToolCall } from "../llm/messages";
import type { LLMStreamEvent } from "../llm/stream-events";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";
import { stringOr, toolCallsOr } from "./value-guards";

/**
 * The points that see a model's output as it streams, in the LLM_STREAM scope, so what they change is
 * what everyone downstream sees (the assembled response, the browser, the event log):
 * - DURING_LLM_STREAMING, once per text chunk: the chunk the extensions return is what passes on, so a
 *   filter (secret masking) acts before anyone sees the text. A filter may hold text back (return "");
 *   before the terminal event it gets one last call, `chunk: ""` and `context.final`, to return what it
 *   held. A failed stream's partial content becomes the filtered text.
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
    let passed = "";
    const calls: ToolCall[] = [];
    for await (const event of next(inv)) {
      if (event.type === "text_delta" && filtersText) {
        const text = await this.filter(inv, event.text, false);
        passed += text;
        if (text) yield { type: "text_delta", text };
      } else if (event.type === "text_delta") {
        passed += event.text;
        yield event;
      } else if (event.type === "tool_call_complete" && parsesCalls) {
        calls.push(event.call);
      } else if (event.type === "finish" || event.type === "stream_failure") {
        const rest = filtersText ? await this.filter(inv, "", true) : "";
        passed += rest;
        if (rest) yield { type: "text_delta", text: rest };
        for (const call of calls.length ? await this.parsed(inv, passed, calls) : []) yield { type: "tool_call_complete", call };
        yield event.type === "stream_failure" && filtersText ? { ...event, partial: { ...event.partial, content: passed } } : event;
      } else {
        yield event;
      }
    }
  }

  private async filter(inv: LlmStreamInvocation, chunk: string, final: boolean): Promise<string> {
    const data = { chunk, context: { iteration: inv.turn.iteration, final } };
    return stringOr(await this.invoker.invoke("DURING_LLM_STREAMING", turnExtensionContext(inv.turn, "DURING_LLM_STREAMING", data)), chunk);
  }

  private async parsed(inv: LlmStreamInvocation, text: string, calls: ToolCall[]): Promise<ToolCall[]> {
    const ctx = turnExtensionContext(inv.turn, "BEFORE_TOOL_PARSE", { llmResponse: text, toolCalls: structuredClone(calls) });
    await this.invoker.invoke("BEFORE_TOOL_PARSE", ctx);
    return toolCallsOr(ctx.get("toolCalls"), calls);
  }
}
