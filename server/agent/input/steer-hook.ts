import { BeforeLlmHook } from "../hook/hook-contracts";
import type { HookContext } from "../hook/hook-context";

/**
 * STEER busy-input mode (INJECT_STEER): messages sent while a turn runs are injected into that turn
 * right before its next model call, as user messages, in the order they arrived. `take` hands over (and
 * forgets) what waits for a session; `onInjected` lets the caller show that they were.
 */
export class SteerHook extends BeforeLlmHook {
  constructor(
    private readonly take: (sessionId: string) => string[],
    private readonly onInjected: (sessionId: string, turnId: string, texts: string[]) => void = () => {},
  ) {
    super();
  }

  beforeLlm(ctx: HookContext<"BEFORE_LLM">): void {
    const texts = this.take(ctx.turn.sessionId);
    if (texts.length === 0) return;
    for (const text of texts) {
      const message = { role: "user" as const, content: text };
      // The request was built from the turn's messages already: both get the message.
      ctx.turn.messages.push(message);
      ctx.request.messages.push(message);
    }
    this.onInjected(ctx.turn.sessionId, ctx.turn.turnId, texts);
  }
}
