import type { LlmRequest } from "./messages";
import { PartialOutputTracker } from "./partial-output-tracker";
import { isTerminalEvent, type LLMStreamEvent } from "./stream-events";
import { estimateUsage, producedOutput } from "./usage-estimate";

/**
 * Gives a stream that reached its terminal event without a UsageSnapshot an estimated one just before
 * that event, so every consumer (the assembler, live listeners, the token budget, traces) sees the
 * call's tokens: always before a Finish (the model answered), before a StreamFailure only when something
 * streamed. `request()` is the request as sent (read when the terminal arrives, after interceptors ran).
 * Expects a single-terminal stream (ensureSingleTerminal).
 */
export async function* estimateMissingUsage(source: AsyncIterable<LLMStreamEvent>, request: () => Pick<LlmRequest, "messages" | "tools">): AsyncGenerator<LLMStreamEvent> {
  const partial = new PartialOutputTracker();
  let reported = false;
  for await (const event of source) {
    partial.observe(event);
    if (event.type === "usage_snapshot") reported = true;
    if (isTerminalEvent(event) && !reported) {
      const output = partial.snapshot();
      if (event.type === "finish" || producedOutput(output)) yield { type: "usage_snapshot", usage: estimateUsage(request(), output) };
    }
    yield event;
  }
}
