import { describe, expect, it } from "vitest";
import { InMemoryControlChannel } from "../control/in-memory-control-channel";
import { AgentCancelledError } from "../errors";
import { LlmCancelInterceptor } from "../interceptor/builtin/llm-cancel-interceptor";
import { InterceptorChain } from "../interceptor/interceptor-chain";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { testTurn } from "../testing/turn-fixture";
import { interruptedMessage } from "./interrupted-message";
import { LlmProvider } from "./llm-provider";
import { ScriptedProvider } from "./providers/scripted-provider";
import { ReactLlmClient } from "./react-llm-client";
import type { LLMStreamEvent } from "./stream-events";
import { ZERO_USAGE } from "./token-usage";
import { estimateUsage } from "./usage-estimate";

const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

class ThrowingProvider extends LlmProvider {
  readonly name = "throwing";
  // eslint-disable-next-line require-yield
  async *stream(): AsyncGenerator<LLMStreamEvent> {
    throw new Error("connection refused");
  }
}

/** Streams one word, then is silent (a model still thinking) until its signal aborts or 5 s pass. */
class SilentProvider extends LlmProvider {
  readonly name = "silent";
  aborted = false;
  async *stream(_request: unknown, options: { signal: AbortSignal }): AsyncGenerator<LLMStreamEvent> {
    yield { type: "text_delta", text: "Let me think" };
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      options.signal.addEventListener("abort", () => ((this.aborted = true), clearTimeout(timer), resolve()));
    });
    yield { type: "text_delta", text: " about it." };
    yield { type: "finish", reason: "stop" };
  }
}

describe("ReactLlmClient", () => {
  it("returns the assembled response and reports every event", async () => {
    const events: LLMStreamEvent[] = [];
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ text: "Hello there", usage: { outputTokens: 2 } }]) });
    const outcome = await client.call({ turn: testTurn(), request, onEvent: (e) => events.push(e) });
    expect(outcome).toMatchObject({ ok: true, response: { content: "Hello there", finishReason: "stop" } });
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text)).toEqual(["Hello ", "there"]);
    expect(events.at(-1)?.type).toBe("finish");
  });

  it("a provider that throws yields a failed outcome (stream-scope invariant), not an exception", async () => {
    const outcome = await new ReactLlmClient({ provider: new ThrowingProvider() }).call({ turn: testTurn(), request });
    expect(outcome).toMatchObject({ ok: false, failure: { error: { code: "STREAM_FAILED" } } });
  });

  it("drains the channel at call start", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
    const provider = new ScriptedProvider([{ text: "never" }]);
    await expect(new ReactLlmClient({ provider, channel }).call({ turn, request })).rejects.toBeInstanceOf(AgentCancelledError);
    expect(provider.requests).toHaveLength(0);
  });

  it("drains per event: a cancel mid-stream stops within one event and stashes the partial output", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ reasoning: "hmm ", text: "one two three four five" }]), channel });
    const seen: LLMStreamEvent[] = [];
    const call = client.call({
      turn,
      request,
      onEvent: (e) => {
        seen.push(e);
        if (e.type === "text_delta" && e.text === "two ") channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" });
      },
    });
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    // The stream's events up to the cut, then the cut call's estimated usage (the provider sent none).
    expect(seen.map((e) => e.type)).toEqual(["reasoning_delta", "text_delta", "text_delta", "usage_snapshot"]);
    expect(seen.at(-1)).toMatchObject({ type: "usage_snapshot", usage: { estimated: true } });
    const partial = turn.custom.get(TurnCustomKeys.INTERRUPTED_PARTIAL);
    expect(partial).toEqual({ content: "one two ", reasoning: "hmm ", toolNames: [] });
    expect(interruptedMessage(partial!)).toEqual({ role: "assistant", content: "<interrupted>one two </interrupted>", reasoning: "hmm ", interrupted: true });
  });

  it("a cancel while the model is silent stops the call at once (no waiting for its next event) and aborts the request", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    const provider = new SilentProvider();
    const client = new ReactLlmClient({ provider, channel });
    const call = client.call({ turn, request, onEvent: () => void setTimeout(() => channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" }), 50) });
    const started = Date.now();
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(provider.aborted).toBe(true);
    expect(turn.custom.get(TurnCustomKeys.INTERRUPTED_PARTIAL)?.content).toBe("Let me think");
  });

  it("a stale cancel while the model is silent does not stop it; this turn's own one does", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    const provider = new SilentProvider();
    const client = new ReactLlmClient({ provider, channel });
    const call = client.call({ turn, request, onEvent: (e) => void (e.type === "text_delta" && setTimeout(() => channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "old" }), 20)) });
    const started = Date.now();
    setTimeout(() => channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" }), 200);
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    // the call outlived the stale command (sent at 20 ms) and ended on this turn's own one
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(provider.aborted).toBe(true);
  });

  it("LlmCancelInterceptor in the stream chain also cancels within one event", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    const interceptors = new InterceptorChain().register(new LlmCancelInterceptor(channel), "LLM_STREAM");
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ text: "a b c d e f" }]), interceptors });
    const seen: LLMStreamEvent[] = [];
    const call = client.call({
      turn,
      request,
      onEvent: (e) => {
        if (seen.push(e) === 2) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
      },
    });
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    expect(seen.map((e) => e.type)).toEqual(["text_delta", "text_delta", "usage_snapshot"]);
    expect(turn.custom.get(TurnCustomKeys.INTERRUPTED_PARTIAL)?.content).toBe("a b ");
  });

  it("a stopped stream's tokens: estimated from the request and what streamed, added to the turn and kept for the trace", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    const provider = new ScriptedProvider([{ reasoning: "hmm ", text: "one two three four five", usage: { inputTokens: 99, outputTokens: 99 } }]);
    const client = new ReactLlmClient({ provider, channel });
    const call = client.call({
      turn,
      request,
      onEvent: (e) => void (e.type === "text_delta" && e.text === "two " && channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" })),
    });
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    // The provider's usage (99/99) would have come after the text: the stop cut it off.
    const expected = estimateUsage(provider.requests[0], { content: "one two ", reasoning: "hmm ", toolCalls: [] });
    expect(expected).toMatchObject({ inputTokens: 5, outputTokens: 3, reasoningTokens: 1, estimated: true });
    expect(turn.usage).toEqual(expected);
    expect(turn.custom.get(TurnCustomKeys.CUT_CALL_USAGE)).toEqual(expected);
  });

  it("a stream cut after the provider reported usage keeps the provider's count, unmarked", async () => {
    const controller = new AbortController();
    const turn = testTurn();
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ text: "a", toolCalls: [{ name: "x" }], usage: { inputTokens: 7, outputTokens: 4 } }]) });
    const call = client.call({ turn, request, signal: controller.signal, onEvent: (e) => void (e.type === "usage_snapshot" && controller.abort()) });
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(turn.usage).toEqual({ ...ZERO_USAGE, inputTokens: 7, outputTokens: 4 });
  });

  it("a call stopped before its first token counts nothing (the model may not have read it)", async () => {
    const channel = new InMemoryControlChannel();
    const turn = testTurn();
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ text: "never" }]), channel });
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" });
    await expect(client.call({ turn, request })).rejects.toBeInstanceOf(AgentCancelledError);
    expect(turn.usage).toEqual(ZERO_USAGE);
    expect(turn.custom.get(TurnCustomKeys.CUT_CALL_USAGE)).toBeUndefined();
  });

  it("a provider that never reports usage: the response carries an estimate, marked", async () => {
    const events: LLMStreamEvent[] = [];
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ text: "Hello there", noUsage: true }]) });
    const outcome = await client.call({ turn: testTurn(), request, onEvent: (e) => events.push(e) });
    expect(outcome).toMatchObject({ ok: true, response: { usage: { inputTokens: 5, outputTokens: 3, estimated: true } } });
    // Live listeners see it too, before the finish (the chat and the instance view count it).
    expect(events.slice(-2).map((e) => e.type)).toEqual(["usage_snapshot", "finish"]);
  });

  it("path-B cancellation (signal) propagates as AbortError and stashes the partial output", async () => {
    const controller = new AbortController();
    const turn = testTurn();
    const client = new ReactLlmClient({ provider: new ScriptedProvider([{ text: "a b c", toolCalls: [{ name: "x" }] }]) });
    const call = client.call({ turn, request, signal: controller.signal, onEvent: () => controller.abort() });
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(turn.custom.get(TurnCustomKeys.INTERRUPTED_PARTIAL)?.content).toBe("a ");
  });
});
