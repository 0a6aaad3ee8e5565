import { describe, expect, it } from "vitest";
import { InMemoryTurnSnapshotStore, restoreTurn, type TurnSnapshotStore } from "../../approval/turn-snapshot";
import { recordingLogger } from "../../logger";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { testTurn } from "../../testing/turn-fixture";
import type { HookContext } from "../hook-context";
import { AfterTurnHook } from "../hook-contracts";
import { HookRunner } from "../hook-runner";
import { CheckpointHook } from "./checkpoint-hook";
import { CurrentTimeHook } from "./current-time-hook";
import { LoggingHook } from "./logging-hook";
import { RUNTIME_CONTEXT, RuntimeContextHook } from "./runtime-context-hook";
import { z } from "zod";
import { defineTool } from "../../tools/tool";

const echo = defineTool({ name: "echo", description: "", args: z.object({ text: z.string() }), execute: ({ text }) => text });

describe("CurrentTimeHook", () => {
  it("injects the current time to the second at fresh-turn start", async () => {
    const turn = testTurn();
    const hook = new CurrentTimeHook(() => Date.UTC(2026, 10, 30, 4, 5, 6, 789));
    await new HookRunner().register(hook).dispatch("START_NODE_TURN", turn, { resumed: false });
    expect(turn.messages).toEqual([{ role: "user", content: "<system-reminder>Current time: 2026-11-30T04:05:06Z</system-reminder>" }]);
  });
});

describe("CheckpointHook", () => {
  it("persists a TurnSnapshot after each iteration whose tools ran, resumable at LLM; not after the answer", async () => {
    const store = new InMemoryTurnSnapshotStore();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }, { text: "done" }]);
    await new ReactAgent({ provider, tools: [echo], hooks: [{ hook: new CheckpointHook(store) }] }).run("x", { sessionId: "s", turnId: "t" });
    const snapshot = await store.load("t");
    expect(snapshot?.resumeTarget).toBe("LLM");
    expect(snapshot?.turn.iteration).toBe(1);
    expect(snapshot?.turn.messages.at(-1)).toMatchObject({ role: "tool", content: "hi" });
  });

  it("a turn resumed from its checkpoint goes on with its next model call; the tools before it do not run again", async () => {
    const store = new InMemoryTurnSnapshotStore();
    const ran: string[] = [];
    const counted = defineTool({ name: "echo", description: "", args: z.object({ text: z.string() }), execute: ({ text }) => (ran.push(text), text) });
    const first = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "a" } }] }]);
    // As if the process died during the second model call: the script has no reply there (that run fails).
    await new ReactAgent({ provider: first, tools: [counted], hooks: [{ hook: new CheckpointHook(store) }] }).run("x", { sessionId: "s", turnId: "t" });
    const saved = await store.load("t");
    expect(saved?.turn.iteration).toBe(1);
    const after = new ScriptedProvider([{ text: "done" }]);
    const outcome = await new ReactAgent({ provider: after, tools: [counted] }).resumeCheckpoint({ turn: restoreTurn(saved!) });
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ stopReason: "completed", content: "done" });
    expect(ran).toEqual(["a"]); // once: the resumed turn ran no tool again
    expect(after.requests).toHaveLength(1);
    expect(after.requests[0].messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(outcome.status === "finished" && outcome.result.iterations).toBe(2);
  });

  it("a failing store is non-fatal: logged, and the turn completes", async () => {
    const logger = recordingLogger();
    const broken: TurnSnapshotStore = { save: async () => { throw new Error("disk full"); }, load: async () => undefined };
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "a" } }] }, { text: "ok" }]);
    const outcome = await new ReactAgent({ provider, tools: [echo], hooks: [{ hook: new CheckpointHook(broken, logger), errorPolicy: "abort" }] }).run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("completed");
    expect(logger.records.some((r) => r.level === "warn" && r.message.includes("disk full"))).toBe(true);
  });
});

describe("RuntimeContextHook", () => {
  it("opens the turn's RuntimeContext and records every tool call", async () => {
    let t = 1_000;
    const hook = new RuntimeContextHook(() => (t += 5));
    let seen: unknown;
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "a" } }, { name: "nope" }] }, { text: "done" }]);
    class Peek extends AfterTurnHook {
      afterTurn(ctx: HookContext<"AFTER_TURN">): void {
        seen = ctx.turn.custom.get(RUNTIME_CONTEXT);
      }
    }
    await new ReactAgent({ provider, tools: [echo], hooks: [{ hook }, { hook: new Peek() }] }).run("x", { sessionId: "s" });
    expect(seen).toMatchObject({
      toolCalls: [
        { name: "echo", isError: false, iteration: 1, batchMs: 5 },
        { name: "nope", isError: true, iteration: 1 },
      ],
    });
  });
});

describe("LoggingHook", () => {
  it("logs LLM responses and tool batches per session", async () => {
    const logger = recordingLogger();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "a" } }] }, { text: "done" }]);
    await new ReactAgent({ provider, tools: [echo], hooks: [{ hook: new LoggingHook(logger) }] }).run("x", { sessionId: "s" });
    expect(logger.records.map((r) => r.message)).toEqual(["llm response", "tool batch start", "tool batch done", "llm response"]);
    expect(logger.records[0].fields?.sessionId).toBe("s");
  });
});
