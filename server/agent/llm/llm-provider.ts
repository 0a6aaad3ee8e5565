import type { LlmRequest } from "./messages";
import type { LLMStreamEvent } from "./stream-events";

export interface LlmStreamOptions {
  /** Aborting it must end the stream promptly with an AbortError (not a StreamFailure). */
  signal: AbortSignal;
}

/**
 * A model behind the closed event stream. A provider yields deltas, completed tool calls and usage, then
 * one terminal event; it reports provider failures as a StreamFailure rather than throwing.
 */
export abstract class LlmProvider {
  abstract readonly name: string;
  abstract stream(request: LlmRequest, options: LlmStreamOptions): AsyncIterable<LLMStreamEvent>;
}
