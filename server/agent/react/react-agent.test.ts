import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryControlChannel } from "../control/in-memory-control-channel";
import { LoopDetectedError } from "../errors";
import type { HookContext } from "../hook/hook-context";
import { AfterTurnHook, BeforeIterationHook, FinalizeContentHook } from "../hook/hook-contracts";
import { ScriptedProvider } from "../llm/providers/scripted-provider";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { RecordingHook } from "../testing/recording-hook";
import { defineTool } from "../tools/tool";
import { reactEngineNet } from "./build-react-graph";
import { ReactAgent } from "./react-agent";

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  args: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const session = { sessionId: "s1" };

function finished(outcome: Awaited<ReturnType<ReactAgent["run"]>>) {
  if (outcome.status !== "finished") throw new Error(`expected a finished turn, got ${outcome.status}`);
  return outcome.result;
}

describe("ReactAgent: the six-node loop", () => {
  it("answers without tools: START → BEFORE → LLM → AFTER → END", async () => {
    const agent = new ReactAgent({ provider: new ScriptedProvider([{ text: "Hello!" }]) });
    const result = finished(await agent.run("hi", session));
    expect(result).toMatchObject({ stopReason: "completed", content: "Hello!", iterations: 1, turnAttempts: 1 });
    expect(await agent.memory.load("s1")).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello!" },
    ]);
  });

  it("runs the LLM ↔ TOOL inner loop and feeds results back to the model", async () => {
    const provider = new ScriptedProvider([{ text: "Adding.", toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] }, { text: "It is 5." }]);
    const agent = new ReactAgent({ provider, tools: [add], systemPrompt: "You add." });
    const result = finished(await agent.run("2+3?", session));
    expect(result).toMatchObject({ stopReason: "completed", content: "It is 5.", iterations: 2 });
    const second = provider.requests[1];
    expect(second.messages[0]).toEqual({ role: "system", content: "You add." });
    expect(second.messages.at(-1)).toEqual({ role: "tool", toolCallId: "call_1_1", name: "add", content: "5", isError: false });
    expect(second.tools.map((t) => t.name)).toEqual(["add"]);
  });

  it("sends the configured model, max tokens and temperature with every request", async () => {
    const provider = new ScriptedProvider([{ text: "ok" }]);
    await new ReactAgent({ provider, request: { model: "big", maxTokens: 100, temperature: 0.2 } }).run("x", session);
    expect(provider.requests[0]).toMatchObject({ model: "big", maxTokens: 100, temperature: 0.2 });
  });

  it("carries the conversation across turns of a session", async () => {
    const provider = new ScriptedProvider([{ text: "one" }, { text: "two" }]);
    const agent = new ReactAgent({ provider });
    await agent.run("first", session);
    await agent.run("second", session);
    expect(provider.requests[1].messages.map((m) => m.content)).toEqual(["first", "one", "second"]);
  });

  it("dispatches the hook points at their four levels, in order", async () => {
    const hook = new RecordingHook();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] }, { text: "2" }]);
    await new ReactAgent({ provider, tools: [add], hooks: [{ hook }] }).run("1+1", session);
    expect(hook.points()).toEqual([
      "BEFORE_GRAPH",
      "START_NODE_TURN",
      "BEFORE_TURN",
      "BEFORE_ITERATION",
      "BEFORE_LLM",
      "AFTER_LLM_RESPONSE",
      "BEFORE_TOOL_EXECUTION",
      "AFTER_TOOL_EXECUTION",
      "AFTER_ITERATION",
      "BEFORE_ITERATION",
      "BEFORE_LLM",
      "AFTER_LLM_RESPONSE",
      "AFTER_ITERATION",
      "AFTER_TURN",
      "FINALIZE_CONTENT",
      "END_NODE_TURN",
      "AFTER_GRAPH",
      "FINALLY_GRAPH",
    ]);
  });

  it("FINALIZE_CONTENT rewrites the final content", async () => {
    class Shout extends FinalizeContentHook {
      finalizeContent(ctx: HookContext<"FINALIZE_CONTENT">): string {
        return ctx.content.toUpperCase();
      }
    }
    const result = finished(await new ReactAgent({ provider: new ScriptedProvider([{ text: "quiet" }]), hooks: [{ hook: new Shout() }] }).run("x", session));
    expect(result.content).toBe("QUIET");
  });
});

describe("ReactAgent: limits and the two safety nets", () => {
  it("the business iteration limit ends the attempt with a normal MAX_ITERATIONS result", async () => {
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] }));
    const result = finished(await new ReactAgent({ provider, tools: [add], maxIterations: 3 }).run("loop", session));
    expect(result).toMatchObject({ stopReason: "max_iterations", iterations: 3 });
    expect(provider.requests).toHaveLength(3);
  });

  it("compiles the engine net as business_max × MAX_TURNS × 4 + 10, above business_max × MAX_TURNS", () => {
    expect(reactEngineNet(25, 3)).toBe(310);
    expect(reactEngineNet(25, 3)).toBeGreaterThan(25 * 3);
    const agent = new ReactAgent({ provider: new ScriptedProvider([]), maxIterations: 25, maxTurns: 3 });
    expect(agent.graph.maxIterations).toBe(310);
  });

  it("a stream failure ends the attempt through AFTER with an ERROR result", async () => {
    const result = finished(await new ReactAgent({ provider: new ScriptedProvider([{ fail: { message: "overloaded" } }]) }).run("x", session));
    expect(result.stopReason).toBe("error");
    expect(result.error?.message).toContain("overloaded");
  });
});

describe("ReactAgent: tool deadline", () => {
  it("a tool past its deadline is aborted, the model reads <tool_timeout>, and the loop goes on", async () => {
    let aborted = false;
    const hang = defineTool({
      name: "hang",
      description: "",
      args: z.object({}),
      execute: (_a, ctx) =>
        new Promise<string>((_, reject) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(ctx.signal.reason);
          }),
        ),
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "hang" }] }, { text: "It timed out; moving on." }]);
    const result = finished(await new ReactAgent({ provider, tools: [hang], toolTimeoutMs: 5 }).run("x", session));
    expect(aborted).toBe(true);
    expect(provider.requests[1].messages.at(-1)?.content).toMatch(/^<tool_timeout>/);
    expect(result).toMatchObject({ stopReason: "completed", content: "It timed out; moving on." });
  });
});

describe("ReactAgent: the engine net", () => {
  it("a maximal run (always tools, always continuing) stays inside the net", async () => {
    class Continue extends AfterTurnHook {
      afterTurn(ctx: HookContext<"AFTER_TURN">): void {
        ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
      }
    }
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] }));
    const agent = new ReactAgent({ provider, tools: [add], maxIterations: 3, maxTurns: 3, hooks: [{ hook: new Continue() }] });
    expect(finished(await agent.run("x", session))).toMatchObject({ stopReason: "max_iterations", turnAttempts: 3 });
  });

  it("exceeding the net raises GraphRecursionError: an abnormal exit that FINALLY_GRAPH still sees", async () => {
    const hook = new RecordingHook();
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] }));
    const agent = new ReactAgent({ provider, tools: [add], maxIterations: 10, engineMaxIterations: 8, hooks: [{ hook }] });
    await expect(agent.run("x", session)).rejects.toMatchObject({ name: "GraphRecursionError" });
    const finallyCtx = hook.calls.find((c) => c.point === "FINALLY_GRAPH")!.ctx as HookContext<"FINALLY_GRAPH">;
    expect(finallyCtx.result).toBeNull();
    expect(finallyCtx.error).toMatchObject({ name: "GraphRecursionError" });
  });
});

describe("ReactAgent: continuation", () => {
  class AlwaysContinue extends AfterTurnHook {
    afterTurn(ctx: HookContext<"AFTER_TURN">): void {
      ctx.turn.messages.push({ role: "user", content: "<system-reminder>keep going</system-reminder>" });
      ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    }
  }

  it("MAX_TURNS 1 (the default) ignores a continuation request", async () => {
    const hook = new RecordingHook();
    const result = finished(await new ReactAgent({ provider: new ScriptedProvider(() => ({ text: "done" })), hooks: [{ hook: new AlwaysContinue() }, { hook }] }).run("x", session));
    expect(result.turnAttempts).toBe(1);
    expect(hook.count("BEFORE_TURN")).toBe(1);
  });

  it("with MAX_TURNS 3 re-enters BEFORE per request: turn hooks re-fire, graph hooks do not", async () => {
    const hook = new RecordingHook();
    const provider = new ScriptedProvider(() => ({ text: "done" }));
    const result = finished(await new ReactAgent({ provider, maxTurns: 3, hooks: [{ hook: new AlwaysContinue() }, { hook }] }).run("x", session));
    expect(result.turnAttempts).toBe(3);
    expect(hook.count("BEFORE_TURN")).toBe(3);
    expect(hook.count("AFTER_TURN")).toBe(3);
    expect(hook.count("BEFORE_GRAPH")).toBe(1);
    expect(hook.count("FINALLY_GRAPH")).toBe(1);
    // ordering [assistant message, reminder]: the next attempt sees the reminder last
    expect(provider.requests[1].messages.slice(-2)).toEqual([
      { role: "assistant", content: "done" },
      { role: "user", content: "<system-reminder>keep going</system-reminder>" },
    ]);
  });

  it("the renew flag extends the budget by exactly one, once", async () => {
    class RenewEveryTime extends AfterTurnHook {
      afterTurn(ctx: HookContext<"AFTER_TURN">): void {
        ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
        ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_RENEW_MAX_TURNS, true);
      }
    }
    const result = finished(await new ReactAgent({ provider: new ScriptedProvider(() => ({ text: "done" })), maxTurns: 2, hooks: [{ hook: new RenewEveryTime() }] }).run("x", session));
    expect(result.turnAttempts).toBe(3);
  });

  it("each attempt resets the iteration budget", async () => {
    let calls = 0;
    const provider = new ScriptedProvider(() => (++calls % 2 === 1 ? { toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] } : { text: "ok" }));
    const agent = new ReactAgent({ provider, tools: [add], maxTurns: 2, maxIterations: 2, hooks: [{ hook: new AlwaysContinue() }] });
    const result = finished(await agent.run("x", session));
    expect(result).toMatchObject({ stopReason: "completed", turnAttempts: 2, iterations: 2 });
  });
});

describe("ReactAgent: controlled exits", () => {
  it("an AgentControlError from a hook is rendered by the one handler", async () => {
    class Loop extends BeforeIterationHook {
      beforeIteration(): void {
        throw new LoopDetectedError("repeating read_file", { userContent: "I was going in circles." });
      }
    }
    const hook = new RecordingHook();
    const result = finished(await new ReactAgent({ provider: new ScriptedProvider([]), hooks: [{ hook: new Loop() }, { hook }] }).run("x", session));
    expect(result).toMatchObject({ stopReason: "loop_detected", content: "I was going in circles." });
    const finallyCtx = hook.calls.find((c) => c.point === "FINALLY_GRAPH")!.ctx as HookContext<"FINALLY_GRAPH">;
    expect(finallyCtx.result).toBe(result);
  });

  it("path A: a CANCEL_TURN mid-stream yields CANCELLED and keeps the partial output as an interrupted message", async () => {
    const channel = new InMemoryControlChannel();
    let deltas = 0;
    const agent = new ReactAgent({
      provider: new ScriptedProvider([{ text: "a long answer that will be cut" }]),
      channel,
      onEvent: (e) => {
        if (e.type === "llm_event" && e.event.type === "text_delta" && ++deltas === 2) {
          channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "turn-1" });
        }
      },
    });
    const result = finished(await agent.run("go", { sessionId: "s1", turnId: "turn-1" }));
    expect(result.stopReason).toBe("cancelled");
    expect((await agent.memory.load("s1")).at(-1)).toEqual({ role: "assistant", content: "<interrupted>a long </interrupted>", interrupted: true });
  });

  it("path A: a CANCEL_TURN queued before a tool call stops the turn before the tool runs", async () => {
    const channel = new InMemoryControlChannel();
    let ran = false;
    const spy = defineTool({ name: "spy", description: "", args: z.object({}), execute: () => ((ran = true), "x") });
    const agent = new ReactAgent({
      provider: new ScriptedProvider([{ toolCalls: [{ name: "spy" }] }]),
      tools: [spy],
      channel,
      onEvent: (e) => {
        if (e.type === "llm_event" && e.event.type === "finish") channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
      },
    });
    expect(finished(await agent.run("go", session)).stopReason).toBe("cancelled");
    expect(ran).toBe(false);
    // the unanswered call is closed in history, so the next turn's request stays valid
    expect((await agent.memory.load("s1")).at(-1)).toMatchObject({ role: "tool", toolCallId: "call_1_1", isError: true });
  });

  it("path A: a CANCEL_TURN while a tool runs aborts the tool's signal and ends the turn at once", async () => {
    const channel = new InMemoryControlChannel();
    let toolSignal: AbortSignal | undefined;
    // A long tool that honours its signal (an MCP call, a slow fetch): a Stop must not wait for it.
    const slow = defineTool({
      name: "slow",
      description: "",
      args: z.object({}),
      execute: (_args, ctx) =>
        new Promise<string>((resolve) => {
          toolSignal = ctx.signal;
          const timer = setTimeout(() => resolve("late"), 3_000);
          ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve("aborted")));
          setTimeout(() => channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "turn-1", reason: "stop pressed" }), 50);
        }),
    });
    const agent = new ReactAgent({ provider: new ScriptedProvider([{ toolCalls: [{ name: "slow" }] }, { text: "never" }]), tools: [slow], channel });
    const started = Date.now();
    const result = finished(await agent.run("go", { sessionId: "s1", turnId: "turn-1" }));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.stopReason).toBe("cancelled");
    expect(toolSignal?.aborted).toBe(true);
    // the cut call is closed in history, so the next turn's request stays valid
    expect((await agent.memory.load("s1")).at(-1)).toMatchObject({ role: "tool", name: "slow", isError: true });
  });

  it("a stale CANCEL_TURN sent while a tool runs leaves the tool alone", async () => {
    const channel = new InMemoryControlChannel();
    const slow = defineTool({
      name: "slow",
      description: "",
      args: z.object({}),
      execute: () => {
        channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "old" });
        return new Promise<string>((resolve) => setTimeout(() => resolve("done"), 50));
      },
    });
    const agent = new ReactAgent({ provider: new ScriptedProvider([{ toolCalls: [{ name: "slow" }] }, { text: "fine" }]), tools: [slow], channel });
    expect(finished(await agent.run("go", { sessionId: "s1", turnId: "new" })).stopReason).toBe("completed");
    expect((await agent.memory.load("s1")).find((m) => m.role === "tool")).toMatchObject({ content: "done" });
  });

  it("a stale CANCEL_TURN for another turn id does not cancel", async () => {
    const channel = new InMemoryControlChannel();
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "old" });
    const result = finished(await new ReactAgent({ provider: new ScriptedProvider([{ text: "fine" }]), channel }).run("go", { sessionId: "s1", turnId: "new" }));
    expect(result.stopReason).toBe("completed");
  });

  it("path B: aborting the run's signal rejects with an AbortError; FINALLY_GRAPH still fires with the error", async () => {
    const controller = new AbortController();
    const hook = new RecordingHook();
    const agent = new ReactAgent({
      provider: new ScriptedProvider([{ text: "x y z" }]),
      hooks: [{ hook }],
      onEvent: () => controller.abort(),
    });
    await expect(agent.run("go", { ...session, signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    const finallyCtx = hook.calls.find((c) => c.point === "FINALLY_GRAPH")!.ctx as HookContext<"FINALLY_GRAPH">;
    expect(finallyCtx.result).toBeNull();
    expect(finallyCtx.error).toBeDefined();
  });
});

describe("ReactAgent: graph-level exit hooks", () => {
  it("a control error raised at AFTER_GRAPH neither masks the outcome nor skips FINALLY_GRAPH", async () => {
    const { AfterGraphHook } = await import("../hook/hook-contracts");
    const { recordingLogger } = await import("../logger");
    class Late extends AfterGraphHook {
      afterGraph(): void {
        throw new LoopDetectedError("too late");
      }
    }
    const hook = new RecordingHook();
    const logger = recordingLogger();
    const agent = new ReactAgent({ provider: new ScriptedProvider([{ text: "fine" }]), hooks: [{ hook: new Late() }, { hook }], logger });
    expect(finished(await agent.run("x", session)).stopReason).toBe("completed");
    expect(hook.count("FINALLY_GRAPH")).toBe(1);
    expect(logger.records.some((r) => r.message.includes("AFTER_GRAPH"))).toBe(true);
  });

  it("a failing AFTER_GRAPH hook under ABORT still lets FINALLY_GRAPH run, then raises", async () => {
    const { AfterGraphHook } = await import("../hook/hook-contracts");
    const { isHookError } = await import("../errors");
    class Broken extends AfterGraphHook {
      afterGraph(): void {
        throw new Error("broken");
      }
    }
    const hook = new RecordingHook();
    const agent = new ReactAgent({ provider: new ScriptedProvider([{ text: "fine" }]), hooks: [{ hook: new Broken(), errorPolicy: "abort" }, { hook }] });
    await expect(agent.run("x", session)).rejects.toSatisfy(isHookError);
    expect(hook.count("FINALLY_GRAPH")).toBe(1);
  });
});

describe("ReactAgent: a late /stop", () => {
  it("a turnless CANCEL_TURN left over from before the turn does not cancel it", async () => {
    const channel = new InMemoryControlChannel({ now: () => 1_000 });
    channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1" });
    const agent = new ReactAgent({ provider: new ScriptedProvider([{ text: "fine" }]), channel });
    expect(finished(await agent.run("go", session)).stopReason).toBe("completed");
  });
});
