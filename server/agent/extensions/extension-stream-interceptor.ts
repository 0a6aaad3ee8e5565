import { Interceptor, type LlmStreamInvocation, type NextLlmStream } from "../interceptor/interceptor";
import type { LLMStreamEvent } from "../llm/stream-events";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";
import { stringOr } from "./value-guards";

/**
 * DURING_LLM_STREAMING, once per text chunk, in the LLM_STREAM scope (the agent has no per-chunk hook).
 * The chunk extensions return is what passes on: the response is assembled from it and the browser
 * streams it, so a filter (secret masking) acts before anyone sees the text. A filter may hold text
 * back (return ""); before the terminal event it gets one last call, `chunk: ""` and `context.final`,
 * to return what it held. A failed stream's partial content becomes the filtered text. Each chunk waits
 * for the extensions, so they should be quick.
 */
export class ExtensionStreamInterceptor extends Interceptor {
  constructor(private readonly invoker: ExtensionInvoker) {
    super();
  }

  async *aroundLlmStream(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent> {
    if (!this.invoker.handles("DURING_LLM_STREAMING")) {
      yield* next(inv);
      return;
    }
    let passed = "";
    for await (const event of next(inv)) {
      if (event.type === "text_delta") {
        const text = await this.filter(inv, event.text, false);
        passed += text;
        if (text) yield { type: "text_delta", text };
        continue;
      }
      if (event.type === "finish" || event.type === "stream_failure") {
        const rest = await this.filter(inv, "", true);
        passed += rest;
        if (rest) yield { type: "text_delta", text: rest };
        yield event.type === "stream_failure" ? { ...event, partial: { ...event.partial, content: passed } } : event;
        continue;
      }
      yield event;
    }
  }

  private async filter(inv: LlmStreamInvocation, chunk: string, final: boolean): Promise<string> {
    const data = { chunk, context: { iteration: inv.turn.iteration, final } };
    return stringOr(await this.invoker.invoke("DURING_LLM_STREAMING", turnExtensionContext(inv.turn, "DURING_LLM_STREAMING", data)), chunk);
  }
}
