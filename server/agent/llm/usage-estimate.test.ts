import { describe, expect, it } from "vitest";
import { estimateMissingUsage } from "./estimate-missing-usage";
import type { LlmRequest } from "./messages";
import { LlmResponseAssembler } from "./response-assembler";
import { streamFailure, type LLMStreamEvent } from "./stream-events";
import { addUsage, ZERO_USAGE } from "./token-usage";
import { estimateUsage, producedOutput } from "./usage-estimate";

const request: LlmRequest = {
  messages: [
    { role: "system", content: "You are terse." }, // 14 chars: 4 tokens + 4 framing
    { role: "user", content: "What is two plus two?" }, // 21 chars: 6 + 4
  ],
  tools: [{ name: "calc", description: "adds", parameters: { type: "object" } }], // "calcadds{\"type\":\"object\"}": 25 chars, 7
};

async function collect(events: LLMStreamEvent[]): Promise<LLMStreamEvent[]> {
  async function* source() {
    yield* events;
  }
  // As ReactLlmClient does: each event goes to the assembler before the next is asked for.
  const assembler = new LlmResponseAssembler();
  const out: LLMStreamEvent[] = [];
  for await (const e of estimateMissingUsage(source(), () => request, assembler)) {
    assembler.feed(e);
    out.push(e);
  }
  return out;
}

describe("estimateUsage", () => {
  it("counts about four characters a token: input from messages and tools, output from text, reasoning and tool calls", () => {
    const usage = estimateUsage(request, {
      content: "Four.", // 5 chars: 2
      reasoning: "2+2=4", // 5 chars: 2
      toolCalls: [{ id: "c1", name: "calc", arguments: '{"a":2,"b":2}' }], // 4 + 13 = 17 chars: 5
    });
    expect(usage).toEqual({ inputTokens: 8 + 10 + 7, outputTokens: 2 + 2 + 5, reasoningTokens: 2, cacheReadTokens: 0, cacheCreationTokens: 0, estimated: true });
  });

  it("producedOutput: only a stream that streamed something is estimated when cut or failed", () => {
    expect(producedOutput({ content: "", reasoning: "", toolCalls: [] })).toBe(false);
    expect(producedOutput({ content: "", reasoning: "h", toolCalls: [] })).toBe(true);
  });

  it("addUsage keeps the mark: a sum with an estimated part is estimated, real plus real is not", () => {
    const real = { ...ZERO_USAGE, inputTokens: 10 };
    expect(addUsage(real, real)).not.toHaveProperty("estimated");
    expect(addUsage(real, estimateUsage(request, { content: "x", reasoning: "", toolCalls: [] }))).toMatchObject({ inputTokens: 35, estimated: true });
  });
});

describe("estimateMissingUsage", () => {
  it("a finish without usage gets an estimated snapshot just before it", async () => {
    const out = await collect([{ type: "text_delta", text: "Four." }, { type: "finish", reason: "stop" }]);
    expect(out.map((e) => e.type)).toEqual(["text_delta", "usage_snapshot", "finish"]);
    expect(out[1]).toEqual({ type: "usage_snapshot", usage: estimateUsage(request, { content: "Four.", reasoning: "", toolCalls: [] }) });
  });

  it("a stream that reported usage passes unchanged", async () => {
    const events: LLMStreamEvent[] = [{ type: "text_delta", text: "Four." }, { type: "usage_snapshot", usage: { ...ZERO_USAGE, outputTokens: 2 } }, { type: "finish", reason: "stop" }];
    expect(await collect(events)).toEqual(events);
  });

  it("a failure is estimated only when something streamed before it", async () => {
    expect((await collect([streamFailure("X", "refused")])).map((e) => e.type)).toEqual(["stream_failure"]);
    const out = await collect([{ type: "text_delta", text: "Fo" }, streamFailure("X", "dropped")]);
    expect(out.map((e) => e.type)).toEqual(["text_delta", "usage_snapshot", "stream_failure"]);
    expect(out[1]).toMatchObject({ usage: { outputTokens: 1, estimated: true } });
  });
});
