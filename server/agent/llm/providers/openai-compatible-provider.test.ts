import { describe, expect, it } from "vitest";
import { InMemoryControlChannel } from "../../control/in-memory-control-channel";
import { AgentCancelledError } from "../../errors";
import { chunk, startFakeOpenAIServer, usageChunk } from "../../testing/fake-openai-server";
import { testTurn } from "../../testing/turn-fixture";
import { TurnCustomKeys } from "../../state/turn-custom-keys";
import { ReactLlmClient } from "../react-llm-client";
import type { LLMStreamEvent } from "../stream-events";
import { OpenAICompatibleProvider } from "./openai-compatible-provider";

async function collect(stream: AsyncIterable<LLMStreamEvent>): Promise<LLMStreamEvent[]> {
  const out: LLMStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const request = {
  messages: [
    { role: "system" as const, content: "be brief" },
    { role: "user" as const, content: "weather in Paris?" },
  ],
  tools: [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }],
};

describe("OpenAICompatibleProvider (against a local SSE server)", () => {
  it("sends model, messages, tools, key and stream options; maps text, reasoning, tool calls, usage and finish", async () => {
    await using server = await startFakeOpenAIServer(() => ({
      kind: "sse",
      chunks: [
        chunk({ role: "assistant", reasoning_content: "need weather" }),
        chunk({ content: "Let me " }),
        chunk({ content: "check." }),
        chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({}, "tool_calls"),
        usageChunk({
          prompt_tokens: 120,
          completion_tokens: 30,
          total_tokens: 150,
          completion_tokens_details: { reasoning_tokens: 12 },
          prompt_tokens_details: { cached_tokens: 100 },
        }),
      ],
    }));
    const provider = new OpenAICompatibleProvider({ baseURL: server.url, model: "test-model", apiKey: "sk-test" });
    const events = await collect(provider.stream(request, { signal: new AbortController().signal }));

    expect(events).toEqual([
      { type: "reasoning_delta", text: "need weather" },
      { type: "text_delta", text: "Let me " },
      { type: "text_delta", text: "check." },
      { type: "tool_call_complete", call: { id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' } },
      { type: "usage_snapshot", usage: { inputTokens: 120, outputTokens: 30, reasoningTokens: 12, cacheReadTokens: 100, cacheCreationTokens: 0 } },
      { type: "finish", reason: "tool_calls" },
    ]);
    const sent = server.requests[0];
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer sk-test");
    expect(sent.body).toMatchObject({
      model: "test-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "weather in Paris?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather for a city" } }],
    });
  });

  it("sends assistant tool calls and tool results back in OpenAI's shape", async () => {
    await using server = await startFakeOpenAIServer(() => ({ kind: "sse", chunks: [chunk({ content: "Sunny." }), chunk({}, "stop")] }));
    const provider = new OpenAICompatibleProvider({ baseURL: server.url, model: "m" });
    const events = await collect(
      provider.stream(
        {
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' }] },
            { role: "tool", toolCallId: "c1", name: "get_weather", content: "sunny", isError: false },
          ],
          tools: [],
        },
        { signal: new AbortController().signal },
      ),
    );
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(server.requests[0].body.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
    ]);
    expect(server.requests[0].body.tools).toBeUndefined();
  });

  it("turns an HTTP error into a StreamFailure", async () => {
    await using server = await startFakeOpenAIServer(() => ({ kind: "error", status: 400, body: { error: { message: "model not found", type: "invalid_request_error" } } }));
    const provider = new OpenAICompatibleProvider({ baseURL: server.url, model: "nope" });
    const events = await collect(provider.stream(request, { signal: new AbortController().signal }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "stream_failure", error: { code: "PROVIDER_FAILED" } });
    expect(JSON.stringify(events[0])).toContain("model not found");
  });

  it("a stream that ends without a finish reason gets a synthesized StreamFailure from the client", async () => {
    await using server = await startFakeOpenAIServer(() => ({ kind: "sse", chunks: [chunk({ content: "half an ans" })] }));
    const client = new ReactLlmClient({ provider: new OpenAICompatibleProvider({ baseURL: server.url, model: "m" }) });
    const outcome = await client.call({ turn: testTurn(), request });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.failure.error.code).toBe("STREAM_EOF");
      expect(outcome.failure.partial.content).toBe("half an ans");
    }
  });

  it("a CANCEL_TURN mid-stream stops the call within one event and stashes the partial output", async () => {
    await using server = await startFakeOpenAIServer(() => ({
      kind: "sse",
      chunks: [chunk({ content: "one " }), chunk({ content: "two " }), chunk({ content: "three " })],
      hold: true,
    }));
    const channel = new InMemoryControlChannel();
    const turn = testTurn({ sessionId: "s", turnId: "t" });
    const client = new ReactLlmClient({ provider: new OpenAICompatibleProvider({ baseURL: server.url, model: "m" }), channel });
    const seen: LLMStreamEvent[] = [];
    const call = client.call({
      turn,
      request,
      onEvent: (e) => {
        seen.push(e);
        if (seen.length === 1) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s", turnId: "t" });
      },
    });
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    // One streamed event, then the cut call's estimate (the usage chunk would have come last).
    expect(seen.map((e) => e.type)).toEqual(["text_delta", "usage_snapshot"]);
    expect(turn.custom.get(TurnCustomKeys.INTERRUPTED_PARTIAL)).toEqual({ content: "one ", reasoning: "", toolNames: [] });
    expect(turn.usage).toMatchObject({ outputTokens: 1, estimated: true });
  });

  it("an abort through the signal raises an AbortError, not a StreamFailure", async () => {
    await using server = await startFakeOpenAIServer(() => ({ kind: "sse", chunks: [chunk({ content: "x" })], hold: true }));
    const provider = new OpenAICompatibleProvider({ baseURL: server.url, model: "m" });
    const controller = new AbortController();
    const consume = (async () => {
      for await (const e of provider.stream(request, { signal: controller.signal })) {
        if (e.type === "text_delta") controller.abort();
      }
    })();
    await expect(consume).rejects.toMatchObject({ name: "AbortError" });
  });

  it("reads its configuration through a zod schema", () => {
    expect(() => new OpenAICompatibleProvider({ baseURL: "not a url", model: "m" })).toThrow();
    expect(() => new OpenAICompatibleProvider({ baseURL: "http://127.0.0.1:1/v1", model: "" })).toThrow();
  });
});
