import { LlmProvider, type LlmStreamOptions } from "../llm/llm-provider";
import type { LlmRequest } from "../llm/messages";
import { ScriptedProvider, type ScriptedReply } from "../llm/providers/scripted-provider";
import type { LLMStreamEvent } from "../llm/stream-events";

/**
 * A model that answers from `script` for its first calls, then starts one more and never finishes it
 * (`hung` once it does): the process "dies" during that call, after the turn's earlier iterations, and
 * their tools, finished.
 */
export class HangingAfter extends LlmProvider {
  readonly name = "hanging-after";
  private readonly scripted: ScriptedProvider;
  hung = false;

  constructor(private readonly script: ScriptedReply[]) {
    super();
    this.scripted = new ScriptedProvider(script);
  }

  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    if (this.scripted.requests.length < this.script.length) return yield* this.scripted.stream(request, options);
    this.hung = true;
    yield { type: "text_delta", text: "reading the page… " };
    await new Promise(() => {});
  }
}
