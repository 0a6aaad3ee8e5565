import type { LlmRequest } from "./messages";
import type { LlmResponseAssembler } from "./response-assembler";
import { isTerminalEvent, type LLMStreamEvent } from "./stream-events";
import { estimateUsage, producedOutput } from "./usage-estimate";

/**
 * Gives a stream that reached its terminal event without a UsageSnapshot an estimated one just before
 * that event, so every consumer (the assembler, live listeners, the token budget, traces) sees the
 * call's tokens: always before a Finish (the model answered), before a StreamFailure only when something
 * streamed. `request()` is the request as sent (read when the terminal arrives, after interceptors ran).
 * `seen` is the assembler the consumer feeds each event before asking for the next: what streamed and
 * whether usage was reported are read from it, not tracked twice. Expects a single-terminal stream
 * (ensureSingleTerminal).
 */
export async function* estimateMissingUsage(
  source: AsyncIterable<LLMStreamEvent>,
  request: () => Pick<LlmRequest, "messages" | "tools">,
  seen: Pick<LlmResponseAssembler, "partialOutput" | "reportedUsage">,
): AsyncGenerator<LLMStreamEvent> {
  for await (const event of source) {
    if (isTerminalEvent(event) && !seen.reportedUsage()) {
      const output = seen.partialOutput();
      if (event.type === "finish" || producedOutput(output)) yield { type: "usage_snapshot", usage: estimateUsage(request(), output) };
    }
    yield event;
  }
}
