import { describe, expect, it } from "vitest";
import type { LLMStreamEvent } from "../stream-events";
import { ScriptedProvider } from "./scripted-provider";

const signal = new AbortController().signal;
const request = { messages: [{ role: "user" as const, content: "go" }], tools: [] };

async function collect(stream: AsyncIterable<LLMStreamEvent>): Promise<LLMStreamEvent[]> {
  const out: LLMStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("ScriptedProvider", () => {
  it("plays replies in order: deltas, tool calls with deterministic ids, usage, finish", async () => {
    const provider = new ScriptedProvider([{ text: "Reading it.", toolCalls: [{ name: "read", args: { path: "a.txt" } }], usage: { inputTokens: 3 } }, { text: "Done." }]);
    const first = await collect(provider.stream(request, { signal }));
    expect(first).toEqual([
      { type: "text_delta", text: "Reading " },
      { type: "text_delta", text: "it." },
      { type: "tool_call_complete", call: { id: "call_1_1", name: "read", arguments: '{"path":"a.txt"}' } },
      { type: "usage_snapshot", usage: { inputTokens: 3, outputTokens: 0, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 } },
      { type: "finish", reason: "tool_calls" },
    ]);
    const second = await collect(provider.stream(request, { signal }));
    expect(second.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(provider.requests).toHaveLength(2);
  });

  it("answers a StreamFailure once the script is exhausted", async () => {
    const events = await collect(new ScriptedProvider([]).stream(request, { signal }));
    expect(events).toEqual([expect.objectContaining({ type: "stream_failure", error: expect.objectContaining({ code: "SCRIPT_EXHAUSTED" }) })]);
  });

  it("can script failures and truncated streams", async () => {
    const provider = new ScriptedProvider([{ text: "part", fail: { message: "overloaded" } }, { text: "cut", truncate: true }]);
    expect((await collect(provider.stream(request, { signal }))).at(-1)).toMatchObject({ type: "stream_failure", partial: { content: "part" } });
    expect((await collect(provider.stream(request, { signal }))).some((e) => e.type === "finish" || e.type === "stream_failure")).toBe(false);
  });

  it("accepts a function script that sees the request", async () => {
    const provider = new ScriptedProvider((req) => ({ text: `echo ${req.messages.at(-1)?.content}` }));
    const events = await collect(provider.stream(request, { signal }));
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text).join("")).toBe("echo go");
  });
});
