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
    expect(seen.map((e) => e.type)).toEqual(["reasoning_delta", "text_delta", "text_delta"]);
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
    let seen = 0;
    const call = client.call({
      turn,
      request,
      onEvent: () => {
        if (++seen === 2) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
      },
    });
    await expect(call).rejects.toBeInstanceOf(AgentCancelledError);
    expect(seen).toBe(2);
    expect(turn.custom.get(TurnCustomKeys.INTERRUPTED_PARTIAL)?.content).toBe("a b ");
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
