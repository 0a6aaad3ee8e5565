import { drainControlChannel } from "../../control/drain-control-channel";
import type { ControlChannel } from "../../control/in-memory-control-channel";
import type { LLMStreamEvent } from "../../llm/stream-events";
import { Interceptor, type LlmStreamInvocation, type NextLlmStream } from "../interceptor";

/**
 * LLM_STREAM: drains the control channel before the stream opens and before yielding each event, so a
 * CANCEL_TURN arriving mid-stream interrupts the model within one event.
 */
export class LlmCancelInterceptor extends Interceptor {
  constructor(private readonly channel: ControlChannel) {
    super();
  }

  async *aroundLlmStream(inv: LlmStreamInvocation, next: NextLlmStream): AsyncIterable<LLMStreamEvent> {
    drainControlChannel(this.channel, inv.turn);
    for await (const event of next(inv)) {
      drainControlChannel(this.channel, inv.turn);
      yield event;
    }
  }
}
