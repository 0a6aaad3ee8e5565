import type { LLMStreamEvent, PartialOutput } from "./stream-events";
import type { ToolCall } from "./messages";

/** Accumulates what a stream has produced so far, so a failure or cancel can report it. */
export class PartialOutputTracker {
  private content = "";
  private reasoning = "";
  private readonly toolCalls: ToolCall[] = [];

  observe(event: LLMStreamEvent): void {
    switch (event.type) {
      case "text_delta":
        this.content += event.text;
        return;
      case "reasoning_delta":
        this.reasoning += event.text;
        return;
      case "tool_call_complete":
        this.toolCalls.push(event.call);
        return;
      case "usage_snapshot":
      case "finish":
      case "stream_failure":
        return;
      default: {
        const unknownEvent: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(unknownEvent)}`);
      }
    }
  }

  snapshot(): PartialOutput {
    return { content: this.content, reasoning: this.reasoning, toolCalls: [...this.toolCalls] };
  }
}
