import { abortErrorFrom } from "../errors";
import { LlmProvider, type LlmStreamOptions } from "../llm/llm-provider";
import type { LlmRequest } from "../llm/messages";
import type { LLMStreamEvent } from "../llm/stream-events";
import { ZERO_USAGE } from "../llm/token-usage";
import { DEMO_MODEL_NAME, demoReply, demoWords, type DemoRequest } from "./demo-policy";

/**
 * The offline demo model (`MODEX_LLM_MODEL=modex-demo`): not a language model, a deterministic policy
 * (demo-policy.ts) that follows Modex's tool protocol, so agents, chat and every example graph can be
 * seen working on a machine without a model. Streams its reply word by word, then its tool calls.
 */
export class DemoModelProvider extends LlmProvider {
  readonly name = DEMO_MODEL_NAME;

  constructor(private readonly options: { sleep?: (ms: number) => Promise<void> } = {}) {
    super();
  }

  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    const reply = demoReply(demoRequestOf(request));
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    let outputTokens = 0;
    for (const word of demoWords(reply.text ?? "")) {
      if (options.signal.aborted) throw abortErrorFrom(options.signal);
      yield { type: "text_delta", text: word };
      outputTokens++;
      await sleep(reply.delayMs);
    }
    if (options.signal.aborted) throw abortErrorFrom(options.signal);
    const calls = reply.toolCalls ?? [];
    for (const [i, call] of calls.entries()) {
      yield { type: "tool_call_complete", call: { id: `demo_${Date.now().toString(36)}_${i}`, name: call.name, arguments: JSON.stringify(call.args) } };
    }
    const inputTokens = Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4);
    yield { type: "usage_snapshot", usage: { ...ZERO_USAGE, inputTokens, outputTokens: outputTokens + calls.length * 20 } };
    yield { type: "finish", reason: calls.length > 0 ? "tool_calls" : "stop" };
  }
}

function demoRequestOf(request: LlmRequest): DemoRequest {
  return {
    messages: request.messages.map((m) =>
      m.role === "assistant"
        ? { role: m.role, content: m.content, toolCalls: m.toolCalls?.map((c) => ({ name: c.name, arguments: c.arguments })) }
        : m.role === "tool"
          ? { role: m.role, content: m.content, name: m.name }
          : { role: m.role, content: m.content },
    ),
    tools: request.tools,
  };
}
