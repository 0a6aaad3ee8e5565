import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ApprovalResumer } from "../approval/approval-resumer";
import { InMemoryTurnSnapshotStore, restoreTurn } from "../approval/turn-snapshot";
import { InMemoryControlChannel } from "../control/in-memory-control-channel";
import { LoopDetectedError } from "../errors";
import { BeforeIterationHook } from "../hook/hook-contracts";
import { CheckpointHook } from "../hook/builtin/checkpoint-hook";
import { HookRunner } from "../hook/hook-runner";
import type { LlmProvider } from "../llm/llm-provider";
import { ScriptedProvider, type Script, type ScriptedReply } from "../llm/providers/scripted-provider";
import { estimateUsage } from "../llm/usage-estimate";
import { ReactAgent } from "../react/react-agent";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { HangingAfter } from "../testing/hanging-after";
import { RecordingTracer } from "../testing/recording-tracer";
import { defineTool } from "../tools/tool";
import { createSpanHooks, SPAN_HOOK_PRIORITY, type SpanTier } from "./create-span-hooks";
import { GenAI, Modex } from "./genai-attributes";
import { ChatSpanHook } from "./chat-span-hook";
import { RootSpanHook, STOPPED_STATUS } from "./root-span-hook";
import { InMemorySpanSink, SpanRecordSchema } from "./span-record";

const echo = defineTool({ name: "echo", description: "Echo", args: z.object({ text: z.string() }), execute: ({ text }) => text });
const toolThenAnswer: Script = [
  { toolCalls: [{ name: "echo", args: { text: "hi" } }], usage: { inputTokens: 10, outputTokens: 3, reasoningTokens: 1, cacheReadTokens: 4 } },
  { text: "done", usage: { inputTokens: 20, outputTokens: 5 } },
];

function traced(tier: SpanTier, script: Script = toolThenAnswer, extra: { tracer?: RecordingTracer; tools?: Parameters<typeof defineTool>[0][] } = {}) {
  const sink = new InMemorySpanSink();
  const runner = new HookRunner();
  for (const spec of createSpanHooks({ tier, sink, tracer: extra.tracer, providerName: "scripted", model: "test-model", captureContent: true, handoffTools: ["delegate_task"] })) runner.register(spec);
  const tools = [echo, ...(extra.tools ?? []).map((t) => defineTool(t))];
  const agent = new ReactAgent({ provider: new ScriptedProvider(script), tools, hooks: runner });
  return { sink, runner, agent };
}

describe("createSpanHooks tiers", () => {
  it("minimal = root; standard = 6 hooks; full = 8; root always first", () => {
    const sink = new InMemorySpanSink();
    const count = (tier: SpanTier) => createSpanHooks({ tier, sink, providerName: "p", model: "m" });
    expect(count("minimal").map((s) => s.hook.name)).toEqual(["RootSpanHook"]);
    expect(count("standard").map((s) => s.hook.name)).toEqual(["RootSpanHook", "ChatSpanHook", "ToolSpanHook", "HandoffSpanHook", "ApprovalSpanHook", "ResumeSpanHook"]);
    expect(count("full").map((s) => s.hook.name)).toEqual([
      "RootSpanHook",
      "ChatSpanHook",
      "ToolSpanHook",
      "HandoffSpanHook",
      "ApprovalSpanHook",
      "ResumeSpanHook",
      "AgentStartSpanHook",
      "IterationSpanHook",
    ]);
    expect(count("full").every((s) => s.priority === SPAN_HOOK_PRIORITY)).toBe(true);
  });
});

describe("span hooks over a ReAct run", () => {
  it("full tier: root, agent start, iterations, chats and the tool batch, all in one trace under the root", async () => {
    const { sink, agent } = traced("full");
    await agent.run("say hi", { sessionId: "s1", turnId: "t1" });
    const names = sink.spans.map((s) => s.name);
    expect(names).toEqual(["agent_start react", "chat test-model", "execute_tool echo", "iteration 1", "chat test-model", "iteration 2", "invoke_agent react"]);
    const root = sink.spans.at(-1)!;
    expect(root.parentSpanId).toBeUndefined();
    expect(new Set(sink.spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    const iterations = sink.named("iteration");
    expect(iterations.every((s) => s.parentSpanId === root.spanId)).toBe(true);
    expect(sink.named("chat")[0].parentSpanId).toBe(iterations[0].spanId);
    expect(sink.named("execute_tool")[0].parentSpanId).toBe(iterations[0].spanId);
    expect(root).toMatchObject({ sessionId: "s1", turnId: "t1", status: { code: "ok" } });
    for (const span of sink.spans) expect(SpanRecordSchema.parse(span)).toEqual(span);
  });

  it("chat spans carry GenAI attributes and typed TokenUsage; the root carries the turn's totals", async () => {
    const { sink, agent } = traced("standard");
    await agent.run("say hi", { sessionId: "s1" });
    const [first, second] = sink.named("chat");
    expect(first.attributes).toMatchObject({
      [GenAI.OPERATION_NAME]: "chat",
      [GenAI.PROVIDER_NAME]: "scripted",
      [GenAI.REQUEST_MODEL]: "test-model",
      [GenAI.RESPONSE_FINISH_REASONS]: ["tool_calls"],
      [GenAI.USAGE_INPUT_TOKENS]: 10,
      [GenAI.USAGE_OUTPUT_TOKENS]: 3,
      [GenAI.USAGE_REASONING_TOKENS]: 1,
      [GenAI.USAGE_CACHE_READ_TOKENS]: 4,
      [GenAI.USAGE_CACHE_CREATION_TOKENS]: 0,
    });
    expect(first.kind).toBe("client");
    expect(String(first.attributes[GenAI.INPUT_MESSAGES])).toContain("say hi");
    expect(second.attributes[GenAI.RESPONSE_FINISH_REASONS]).toEqual(["stop"]);
    const root = sink.named("invoke_agent")[0];
    expect(root.attributes).toMatchObject({ [GenAI.USAGE_INPUT_TOKENS]: 30, [GenAI.USAGE_OUTPUT_TOKENS]: 8, [Modex.STOP_REASON]: "completed", [GenAI.CONVERSATION_ID]: "s1" });
  });

  it("content is not captured unless asked", async () => {
    const sink = new InMemorySpanSink();
    const runner = new HookRunner();
    for (const spec of createSpanHooks({ tier: "standard", sink, providerName: "p", model: "m" })) runner.register(spec);
    await new ReactAgent({ provider: new ScriptedProvider([{ text: "x" }]), hooks: runner }).run("secret", { sessionId: "s" });
    expect(JSON.stringify(sink.spans)).not.toContain("secret");
  });

  it("minimal tier writes only the root span", async () => {
    const { sink, agent } = traced("minimal");
    await agent.run("x", { sessionId: "s" });
    expect(sink.spans.map((s) => s.name)).toEqual(["invoke_agent react"]);
  });

  it("a failed stream closes its chat span as an error", async () => {
    const { sink, agent } = traced("standard", [{ fail: { message: "overloaded" } }]);
    await agent.run("x", { sessionId: "s" });
    expect(sink.named("chat")[0].status).toEqual({ code: "error", message: "overloaded" });
    expect(sink.named("invoke_agent")[0].status.code).toBe("error");
  });

  it("a stopped turn closes the model call it cut short as stopped, not as an error", async () => {
    const channel = new InMemoryControlChannel();
    const sink = new InMemorySpanSink();
    const runner = new HookRunner();
    for (const spec of createSpanHooks({ tier: "standard", sink, providerName: "scripted", model: "test-model" })) runner.register(spec);
    let deltas = 0;
    const agent = new ReactAgent({
      provider: new ScriptedProvider([{ text: "a long answer that will be cut" }]),
      hooks: runner,
      channel,
      onEvent: (e) => {
        if (e.type === "llm_event" && e.event.type === "text_delta" && ++deltas === 2) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" });
      },
    });
    await agent.run("go", { sessionId: "s1", turnId: "t1" });
    expect(sink.named("invoke_agent")[0].attributes[Modex.STOP_REASON]).toBe("cancelled");
    expect(sink.named("chat")[0].status).toEqual(STOPPED_STATUS);
    expect(sink.spans.every((s) => s.status.code !== "error")).toBe(true);
  });

  it("a stopped turn's cut model call and its root carry the estimated tokens, marked modex.usage.estimated", async () => {
    const channel = new InMemoryControlChannel();
    const sink = new InMemorySpanSink();
    const runner = new HookRunner();
    for (const spec of createSpanHooks({ tier: "standard", sink, providerName: "scripted", model: "test-model" })) runner.register(spec);
    const provider = new ScriptedProvider([{ text: "a long answer that will be cut" }]);
    let deltas = 0;
    const agent = new ReactAgent({
      provider,
      hooks: runner,
      channel,
      onEvent: (e) => {
        if (e.type === "llm_event" && e.event.type === "text_delta" && ++deltas === 2) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s1", turnId: "t1" });
      },
    });
    const outcome = await agent.run("go", { sessionId: "s1", turnId: "t1" });
    // "a long " streamed before the stop: 7 characters, 2 tokens; the input from the request as sent.
    const expected = estimateUsage(provider.requests[0], { content: "a long ", reasoning: "", toolCalls: [] });
    expect(expected.outputTokens).toBe(2);
    expect(outcome).toMatchObject({ status: "finished", result: { stopReason: "cancelled", usage: expected } });
    const attributes = { [GenAI.USAGE_INPUT_TOKENS]: expected.inputTokens, [GenAI.USAGE_OUTPUT_TOKENS]: 2, [Modex.USAGE_ESTIMATED]: true };
    expect(sink.named("chat")[0].attributes).toMatchObject(attributes);
    expect(sink.named("invoke_agent")[0].attributes).toMatchObject(attributes);
  });

  it("a provider that sends no usage: the model call's span carries an estimate, marked; real counts are not marked", async () => {
    const { sink, agent } = traced("standard", [{ text: "twelve chars", noUsage: true }]);
    await agent.run("x", { sessionId: "s" });
    expect(sink.named("chat")[0].attributes).toMatchObject({ [GenAI.USAGE_OUTPUT_TOKENS]: 3, [Modex.USAGE_ESTIMATED]: true });
    expect(sink.named("invoke_agent")[0].attributes).toMatchObject({ [GenAI.USAGE_OUTPUT_TOKENS]: 3, [Modex.USAGE_ESTIMATED]: true });
    const real = traced("standard");
    await real.agent.run("say hi", { sessionId: "s1" });
    expect(real.sink.spans.some((s) => Modex.USAGE_ESTIMATED in s.attributes)).toBe(false);
  });

  it("a stream that failed after streaming closes its span as an error with the estimated tokens", async () => {
    const { sink, agent } = traced("standard", [{ text: "half an answer", fail: { message: "overloaded" } }]);
    await agent.run("x", { sessionId: "s" });
    const chat = sink.named("chat")[0];
    expect(chat.status).toEqual({ code: "error", message: "overloaded" });
    expect(chat.attributes).toMatchObject({ [GenAI.USAGE_OUTPUT_TOKENS]: 4, [Modex.USAGE_ESTIMATED]: true });
  });

  it("a controlled exit closes dangling spans and the root", async () => {
    class Loop extends BeforeIterationHook {
      beforeIteration(): void {
        throw new LoopDetectedError("loop");
      }
    }
    const { sink, runner, agent } = traced("full");
    runner.register(new Loop());
    await agent.run("x", { sessionId: "s" });
    expect(sink.named("iteration")[0].status.code).toBe("error");
    expect(sink.named("invoke_agent")[0].attributes[Modex.STOP_REASON]).toBe("loop_detected");
  });

  it("a handoff tool call gets a span parented to its tool batch span", async () => {
    const { sink, agent } = traced("standard", [{ toolCalls: [{ name: "delegate_task", args: { task: "x" } }] }, { text: "ok" }], {
      tools: [{ name: "delegate_task", description: "", args: z.object({ task: z.string() }), execute: () => "delegated" }],
    });
    await agent.run("x", { sessionId: "s" });
    const handoff = sink.named("handoff")[0];
    expect(handoff.parentSpanId).toBe(sink.named("execute_tool")[0].spanId);
  });
});

describe("span hooks across an approval suspend", () => {
  it("the suspend leg keeps the root open; the resumed leg closes it in the same trace, with an approval span", async () => {
    const { sink, agent } = traced("standard", [{ toolCalls: [{ name: "rm", args: {} }] }, { text: "removed" }], {
      tools: [{ name: "rm", description: "", args: z.object({}), needsApproval: true, execute: () => "gone" }],
    });
    const first = await agent.run("rm it", { sessionId: "s", turnId: "t" });
    expect(sink.named("invoke_agent")).toHaveLength(0);
    if (first.status !== "suspended") throw new Error("expected suspend");
    await new ApprovalResumer(agent).applyResume({ transactionId: first.transaction.id, approved: true });
    const roots = sink.named("invoke_agent");
    expect(roots).toHaveLength(1);
    const approval = sink.named("approval")[0];
    expect(approval.attributes[Modex.APPROVAL_DECISION]).toBe("approved");
    expect(approval.parentSpanId).toBe(roots[0].spanId);
    expect(new Set(sink.spans.map((s) => s.traceId)).size).toBe(1);
    expect(new Set(sink.spans.map((s) => s.spanId)).size).toBe(sink.spans.length);
    // the tool batch the turn stopped in is closed on the resumed leg, under the root
    expect(sink.named("execute_tool rm")).toHaveLength(1);
    expect(sink.named("execute_tool rm")[0].parentSpanId).toBe(roots[0].spanId);
    expect(sink.named("chat").every((s) => s.parentSpanId === roots[0].spanId)).toBe(true);
    // Where the turn picked up: after the decision, in the step that asked, before that step's tool batch closed.
    const resumed = sink.named("resumed");
    expect(resumed.map((s) => s.name)).toEqual(["resumed after the approval decision, in step 1"]);
    expect(resumed[0]).toMatchObject({ parentSpanId: roots[0].spanId, status: { code: "ok" }, attributes: { [Modex.RESUMED_FROM]: "approval", [Modex.RESUMED_STEP]: 1 } });
    expect(resumed[0].endTime).toBe(resumed[0].startTime);
    expect(sink.spans.indexOf(resumed[0])).toBeLessThan(sink.spans.indexOf(sink.named("execute_tool rm")[0]));
  });

  it("full tier: the open iteration survives the suspend, and OpenTelemetry spans are all ended on the suspend leg", async () => {
    const tracer = new RecordingTracer();
    const { sink, agent } = traced("full", [{ toolCalls: [{ name: "rm", args: {} }] }, { text: "removed" }], {
      tracer,
      tools: [{ name: "rm", description: "", args: z.object({}), needsApproval: true, execute: () => "gone" }],
    });
    const first = await agent.run("rm it", { sessionId: "s", turnId: "t" });
    expect(tracer.spans.every((s) => s.ended)).toBe(true);
    expect(tracer.spans.find((s) => s.name.startsWith("invoke_agent"))?.attributes["modex.suspended"]).toBe(true);
    if (first.status !== "suspended") throw new Error("expected suspend");
    await new ApprovalResumer(agent).applyResume({ transactionId: first.transaction.id, approved: true });
    const root = sink.named("invoke_agent")[0];
    const iterations = sink.named("iteration");
    expect(iterations.map((s) => s.name)).toEqual(["iteration 1", "iteration 2"]);
    expect(sink.named("execute_tool")[0].parentSpanId).toBe(iterations[0].spanId);
    expect(iterations.every((s) => s.parentSpanId === root.spanId)).toBe(true);
    expect(new Set(sink.spans.map((s) => s.spanId)).size).toBe(sink.spans.length);
    const rootOtel = tracer.spans.find((s) => s.name.startsWith("invoke_agent"))!;
    expect(rootOtel.spanContext().spanId).toBe(root.spanId);
  });
});

describe("span hooks across a restart", () => {
  it("a turn resumed from its checkpoint goes on in the same trace, with a span saying it picked up after step N", async () => {
    const sink = new InMemorySpanSink();
    const checkpoints = new InMemoryTurnSnapshotStore();
    const agentOn = (provider: LlmProvider) => {
      const runner = new HookRunner();
      for (const spec of createSpanHooks({ tier: "standard", sink, providerName: "scripted", model: "test-model" })) runner.register(spec);
      runner.register({ hook: new CheckpointHook(checkpoints), priority: 1_000 });
      return new ReactAgent({ provider, tools: [echo], hooks: runner });
    };
    void agentOn(new HangingAfter([(toolThenAnswer as ScriptedReply[])[0]])).run("say hi", { sessionId: "s", turnId: "t" });
    await vi.waitFor(async () => expect(await checkpoints.load("t")).toBeDefined());
    // What the dead process wrote: its first step's model call and tool batch; the root was still open.
    expect(sink.spans.map((s) => s.name)).toEqual(["chat test-model", "execute_tool echo"]);

    const turn = restoreTurn((await checkpoints.load("t"))!);
    turn.custom.set(TurnCustomKeys.CHECKPOINT_RESUMES, 1);
    await agentOn(new ScriptedProvider([{ text: "done" }])).resumeCheckpoint({ turn });
    expect(sink.spans.map((s) => s.name)).toEqual(["chat test-model", "execute_tool echo", "resumed after a restart, from the end of step 1", "chat test-model", "invoke_agent react"]);
    const root = sink.named("invoke_agent")[0];
    const resumed = sink.named("resumed")[0];
    expect(resumed).toMatchObject({ parentSpanId: root.spanId, turnId: "t", status: { code: "ok" }, attributes: { [Modex.RESUMED_FROM]: "restart", [Modex.RESUMED_STEP]: 1, [Modex.RESUMED_COUNT]: 1 } });
    expect(new Set(sink.spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    expect(sink.spans.every((s) => s === root || s.parentSpanId === root.spanId)).toBe(true);
    expect(root.status).toEqual({ code: "ok" });
  });
});

describe("OpenTelemetry mirroring", () => {
  it("mirrors every span to the tracer with matching ids and parents", async () => {
    const tracer = new RecordingTracer();
    const { sink, agent } = traced("full", toolThenAnswer, { tracer });
    await agent.run("x", { sessionId: "s" });
    expect(tracer.spans).toHaveLength(sink.spans.length);
    expect(tracer.spans.every((s) => s.ended)).toBe(true);
    for (const record of sink.spans) {
      const otel = tracer.spans.find((s) => s.spanContext().spanId === record.spanId)!;
      expect(otel.name).toBe(record.name);
      expect(otel.spanContext().traceId).toBe(record.traceId);
      expect(otel.parentSpanId).toBe(record.parentSpanId);
    }
    const chat = tracer.spans.find((s) => s.name.startsWith("chat"))!;
    expect(chat.attributes[GenAI.USAGE_INPUT_TOKENS]).toBe(10);
  });

  it("hooks are shared: per-turn trace state lives in the turn, so concurrent turns do not mix", async () => {
    const sink = new InMemorySpanSink();
    const specs = createSpanHooks({ tier: "standard", sink, providerName: "p", model: "m" });
    expect(specs[0].hook).toBeInstanceOf(RootSpanHook);
    expect(specs[1].hook).toBeInstanceOf(ChatSpanHook);
    const runner = new HookRunner();
    for (const spec of specs) runner.register(spec);
    const agent = new ReactAgent({ provider: new ScriptedProvider(() => ({ text: "ok" })), hooks: runner });
    await Promise.all([agent.run("a", { sessionId: "s1" }), agent.run("b", { sessionId: "s2" })]);
    const roots = sink.named("invoke_agent");
    expect(roots).toHaveLength(2);
    expect(roots[0].traceId).not.toBe(roots[1].traceId);
    for (const root of roots) {
      const chats = sink.spans.filter((s) => s.parentSpanId === root.spanId);
      expect(chats).toHaveLength(1);
      expect(chats[0].sessionId).toBe(root.sessionId);
    }
  });
});
