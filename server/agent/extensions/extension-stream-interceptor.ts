import { Interceptor, type LlmStreamInvocation, type NextLlmStream } from "../interceptor/interceptor";
import type { LLMStreamEvent } from "../llm/stream-events";
import type { ExtensionInvoker } from "./extension-invoker";
import { turnExtensionContext } from "./turn-extension-context";

/**
 * DURING_LLM_STREAMING, once per text chunk, in the LLM_STREAM scope (the agent has no per-chunk hook).
 * COLLECT and observation only: what extensions return is not applied, and every event passes on
 * unchanged. Each chunk waits for the extensions, so they should be quick.
 */
export class ExtensionStreamInterceptor extends Interceptor {
  constructor(private readonly invoker: ExtensionInvoker) {
    super();
  }

  async *aroundLlmStream(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent> {
    const watched = this.invoker.handles("DURING_LLM_STREAMING");
    for await (const event of next(inv)) {
      if (watched && event.type === "text_delta") {
        const data = { chunk: event.text, context: { iteration: inv.turn.iteration } };
        await this.invoker.invoke("DURING_LLM_STREAMING", turnExtensionContext(inv.turn, "DURING_LLM_STREAMING", data));
      }
      yield event;
    }
  }
}
