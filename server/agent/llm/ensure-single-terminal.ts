import { AGENT_ERROR_CODES } from "../errors";
import { PartialOutputTracker } from "./partial-output-tracker";
import { isTerminalEvent, streamFailure, type LLMStreamEvent } from "./stream-events";

/**
 * Enforces the stream's terminal invariant: the output ends with exactly one Finish or StreamFailure.
 * Events after the first terminal are dropped (the source is closed); a source that ends without one
 * gets a synthesized StreamFailure carrying the partial output.
 */
export async function* ensureSingleTerminal(source: AsyncIterable<LLMStreamEvent>): AsyncGenerator<LLMStreamEvent> {
  const partial = new PartialOutputTracker();
  for await (const event of source) {
    partial.observe(event);
    yield event;
    if (isTerminalEvent(event)) return;
  }
  yield streamFailure(AGENT_ERROR_CODES.STREAM_EOF, "the LLM stream ended without a finish event", partial.snapshot());
}
