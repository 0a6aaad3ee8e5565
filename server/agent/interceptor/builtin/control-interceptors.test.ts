import { describe, expect, it } from "vitest";
import { InMemoryControlChannel } from "../../control/in-memory-control-channel";
import { AgentCancelledError } from "../../errors";
import type { LLMStreamEvent } from "../../llm/stream-events";
import { testTurn } from "../../testing/turn-fixture";
import { toolInvocation } from "../../testing/tool-invocation-fixture";
import { InterceptorChain } from "../interceptor-chain";
import { ControlDrainInterceptor } from "./control-drain-interceptor";
import { LlmCancelInterceptor } from "./llm-cancel-interceptor";

const turn = testTurn({ sessionId: "s", turnId: "t" });

describe("ControlDrainInterceptor", () => {
  it("raises AgentCancelledError before the tool runs when CANCEL_TURN is queued", async () => {
    const channel = new InMemoryControlChannel();
    let ran = false;
    const chain = new InterceptorChain().register(new ControlDrainInterceptor(channel), "TOOL_CALL");
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s", turnId: "t" });
    const pending = chain.runToolCall(toolInvocation({ turn, execute: async () => { ran = true; throw new Error("unreachable"); } }));
    await expect(pending).rejects.toBeInstanceOf(AgentCancelledError);
    expect(ran).toBe(false);
  });

  it("lets the tool run when nothing is queued for this turn", async () => {
    const channel = new InMemoryControlChannel();
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s", turnId: "stale" });
    const chain = new InterceptorChain().register(new ControlDrainInterceptor(channel), "TOOL_CALL");
    expect((await chain.runToolCall(toolInvocation({ turn }))).content).toBe("ok");
  });
});

describe("LlmCancelInterceptor", () => {
  it("stops the stream within one event of a CANCEL_TURN", async () => {
    const channel = new InMemoryControlChannel();
    const chain = new InterceptorChain().register(new LlmCancelInterceptor(channel), "LLM_STREAM");
    let produced = 0;
    const stream = chain.openLlmStream({
      turn,
      request: { messages: [], tools: [] },
      signal: new AbortController().signal,
      open: async function* () {
        for (let i = 0; i < 100; i++) {
          produced++;
          yield { type: "text_delta", text: `${i}` } satisfies LLMStreamEvent;
        }
        yield { type: "finish", reason: "stop" } satisfies LLMStreamEvent;
      },
    });
    const seen: LLMStreamEvent[] = [];
    const run = (async () => {
      for await (const e of stream) {
        seen.push(e);
        if (seen.length === 3) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s" });
      }
    })();
    await expect(run).rejects.toBeInstanceOf(AgentCancelledError);
    expect(seen).toHaveLength(3);
    expect(produced).toBe(4);
  });
});
