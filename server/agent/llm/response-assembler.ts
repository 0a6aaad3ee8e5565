import { AGENT_ERROR_CODES, AgentError } from "../errors";
import type { LlmResponse } from "./llm-response";
import { PartialOutputTracker } from "./partial-output-tracker";
import type { LLMStreamEvent, PartialOutput, StreamFailure } from "./stream-events";
import { ZERO_USAGE, type TokenUsage } from "./token-usage";

export type LlmCallOutcome =
  | { ok: true; response: LlmResponse }
  | { ok: false; failure: StreamFailure; usage: TokenUsage };

/**
 * Folds the event stream into an LlmResponse. Accepts exactly one terminal event: feeding anything after
 * it is a contract violation. `end()` on a stream that never terminated synthesizes a StreamFailure, so
 * every assembled stream has an outcome.
 */
export class LlmResponseAssembler {
  private readonly partial = new PartialOutputTracker();
  private usage: TokenUsage | undefined;
  private result: LlmCallOutcome | undefined;

  feed(event: LLMStreamEvent): void {
    if (this.result) {
      throw new AgentError(AGENT_ERROR_CODES.INVALID_STATE, `stream event ${event.type} after the terminal event`);
    }
    this.partial.observe(event);
    switch (event.type) {
      case "text_delta":
      case "reasoning_delta":
      case "tool_call_complete":
        return;
      case "usage_snapshot":
        // A snapshot is cumulative: the latest one is the response's usage.
        this.usage = event.usage;
        return;
      case "finish": {
        const p = this.partial.snapshot();
        this.result = {
          ok: true,
          response: { content: p.content, reasoning: p.reasoning, toolCalls: p.toolCalls, usage: this.usage ?? ZERO_USAGE, finishReason: event.reason },
        };
        return;
      }
      case "stream_failure":
        this.result = { ok: false, failure: event, usage: this.usage ?? ZERO_USAGE };
        return;
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(unknownEvent)}`);
      }
    }
  }

  get terminated(): boolean {
    return this.result !== undefined;
  }

  /** What has streamed so far (kept as the interrupted message when a cancel cuts the stream). */
  partialOutput(): PartialOutput {
    return this.partial.snapshot();
  }

  /** The latest usage the stream reported; undefined when none came (yet). */
  reportedUsage(): TokenUsage | undefined {
    return this.usage;
  }

  /** The outcome; synthesizes a StreamFailure when no terminal event arrived. */
  end(): LlmCallOutcome {
    if (!this.result) {
      this.feed({
        type: "stream_failure",
        error: { code: AGENT_ERROR_CODES.STREAM_EOF, message: "the LLM stream ended without a finish event" },
        partial: this.partial.snapshot(),
      });
    }
    return this.result!;
  }
}
