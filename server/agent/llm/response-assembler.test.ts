import { describe, expect, it } from "vitest";
import { isAgentError } from "../errors";
import { ensureSingleTerminal } from "./ensure-single-terminal";
import { LlmResponseAssembler } from "./response-assembler";
import type { LLMStreamEvent } from "./stream-events";
import { ZERO_USAGE } from "./token-usage";

async function* from(events: LLMStreamEvent[]): AsyncGenerator<LLMStreamEvent> {
  yield* events;
}
async function collect(stream: AsyncIterable<LLMStreamEvent>): Promise<LLMStreamEvent[]> {
  const out: LLMStreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}
const finish: LLMStreamEvent = { type: "finish", reason: "stop" };

describe("ensureSingleTerminal", () => {
  it("passes a well-formed stream through unchanged", async () => {
    const events: LLMStreamEvent[] = [{ type: "text_delta", text: "a" }, finish];
    expect(await collect(ensureSingleTerminal(from(events)))).toEqual(events);
  });

  it("synthesizes a StreamFailure with the partial output on a bare end of stream", async () => {
    const out = await collect(ensureSingleTerminal(from([{ type: "text_delta", text: "par" }, { type: "reasoning_delta", text: "r" }])));
    expect(out).toHaveLength(3);
    expect(out[2]).toMatchObject({ type: "stream_failure", error: { code: "STREAM_EOF" }, partial: { content: "par", reasoning: "r" } });
  });

  it("drops anything after the first terminal event", async () => {
    const out = await collect(ensureSingleTerminal(from([finish, { type: "text_delta", text: "late" }, finish])));
    expect(out).toEqual([finish]);
  });

  it("an empty stream still ends with exactly one terminal event", async () => {
    const out = await collect(ensureSingleTerminal(from([])));
    expect(out.map((e) => e.type)).toEqual(["stream_failure"]);
  });
});

describe("LlmResponseAssembler", () => {
  it("assembles text, reasoning, tool calls, the latest usage snapshot and the finish reason", () => {
    const a = new LlmResponseAssembler();
    a.feed({ type: "reasoning_delta", text: "think" });
    a.feed({ type: "text_delta", text: "Hel" });
    a.feed({ type: "text_delta", text: "lo" });
    a.feed({ type: "tool_call_complete", call: { id: "c", name: "t", arguments: "{}" } });
    a.feed({ type: "usage_snapshot", usage: { ...ZERO_USAGE, inputTokens: 1 } });
    a.feed({ type: "usage_snapshot", usage: { ...ZERO_USAGE, inputTokens: 5, outputTokens: 2 } });
    a.feed({ type: "finish", reason: "tool_calls" });
    expect(a.end()).toEqual({
      ok: true,
      response: {
        content: "Hello",
        reasoning: "think",
        toolCalls: [{ id: "c", name: "t", arguments: "{}" }],
        usage: { ...ZERO_USAGE, inputTokens: 5, outputTokens: 2 },
        finishReason: "tool_calls",
      },
    });
  });

  it("reports a StreamFailure as a failed outcome", () => {
    const a = new LlmResponseAssembler();
    a.feed({ type: "stream_failure", error: { code: "X", message: "m" }, partial: { content: "", reasoning: "", toolCalls: [] } });
    const outcome = a.end();
    expect(outcome.ok).toBe(false);
  });

  it("accepts exactly one terminal event", () => {
    const a = new LlmResponseAssembler();
    a.feed(finish);
    expect(() => a.feed(finish)).toThrow(expect.toSatisfy(isAgentError));
  });

  it("end() without a terminal synthesizes a StreamFailure", () => {
    const a = new LlmResponseAssembler();
    a.feed({ type: "text_delta", text: "x" });
    const outcome = a.end();
    expect(outcome).toMatchObject({ ok: false, failure: { error: { code: "STREAM_EOF" }, partial: { content: "x" } } });
  });
});
