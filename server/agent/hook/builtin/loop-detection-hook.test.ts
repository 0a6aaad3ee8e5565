import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LoopDetectedError } from "../../errors";
import type { ChatMessage } from "../../llm/messages";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { testTurn } from "../../testing/turn-fixture";
import { defineTool } from "../../tools/tool";
import { HookRunner } from "../hook-runner";
import { LOOP_EPISODE, LoopDetectionHook, batchSignature, trailingRun } from "./loop-detection-hook";
import { isSystemReminder, systemReminder } from "./system-reminder";

const round = (args: string, id = "x"): ChatMessage[] => [
  { role: "assistant", content: "", toolCalls: [{ id, name: "read", arguments: args }] },
  { role: "tool", toolCallId: id, name: "read", content: "same", isError: false },
];

describe("batch signatures", () => {
  it("ignore call ids, call order and argument key order", () => {
    const a = batchSignature([
      { id: "1", name: "read", arguments: '{"path":"a","n":1}' },
      { id: "2", name: "ls", arguments: "{}" },
    ]);
    const b = batchSignature([
      { id: "9", name: "ls", arguments: "{}" },
      { id: "8", name: "read", arguments: '{"n":1,"path":"a"}' },
    ]);
    expect(a).toBe(b);
    expect(batchSignature([{ id: "1", name: "read", arguments: '{"path":"b"}' }])).not.toBe(batchSignature([{ id: "1", name: "read", arguments: '{"path":"a"}' }]));
  });

  it("trailing runs skip tool results and system reminders but stop at a user message or another batch", () => {
    const history = [...round('{"p":1}'), { role: "user" as const, content: "steer" }, ...round('{"p":2}'), ...round('{"p":2}', "y"), systemReminder("r"), ...round('{"p":2}', "z")];
    expect(trailingRun(history)?.count).toBe(3);
    expect(trailingRun([{ role: "user", content: "hi" }])).toBeUndefined();
  });
});

describe("LoopDetectionHook", () => {
  function turnWithRounds(n: number) {
    const turn = testTurn();
    for (let i = 0; i < n; i++) turn.messages.push(...round('{"path":"a"}', `c${i}`));
    return turn;
  }
  const dispatch = (runner: HookRunner, turn: ReturnType<typeof testTurn>) => runner.dispatch("BEFORE_ITERATION", turn, { iteration: 1 });

  it("below the window does nothing", async () => {
    const turn = turnWithRounds(9);
    await dispatch(new HookRunner().register(new LoopDetectionHook()), turn);
    expect(turn.messages.some(isSystemReminder)).toBe(false);
  });

  it("at the window appends an advisory reminder naming the call; after two unheeded checks raises LoopDetectedError", async () => {
    const runner = new HookRunner().register(new LoopDetectionHook());
    const turn = turnWithRounds(10);
    await dispatch(runner, turn);
    expect(turn.messages.at(-1)?.content).toContain("read");
    turn.messages.push(...round('{"path":"a"}', "c10"));
    await dispatch(runner, turn);
    turn.messages.push(...round('{"path":"a"}', "c11"));
    await expect(dispatch(runner, turn)).rejects.toBeInstanceOf(LoopDetectedError);
  });

  it("a run that falls below the window clears the episode and earns a fresh cycle", async () => {
    const runner = new HookRunner().register(new LoopDetectionHook());
    const turn = turnWithRounds(10);
    await dispatch(runner, turn);
    expect(turn.custom.has(LOOP_EPISODE)).toBe(true);
    turn.messages.push({ role: "user", content: "try something else" });
    await dispatch(runner, turn);
    expect(turn.custom.has(LOOP_EPISODE)).toBe(false);
  });

  it("in a real ReAct run the hard exit comes at round 13, rendered as LOOP_DETECTED", async () => {
    const read = defineTool({ name: "read", description: "", args: z.object({ path: z.string() }), execute: () => "same" });
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: "read", args: { path: "a" } }] }));
    const agent = new ReactAgent({ provider, tools: [read], hooks: [{ hook: new LoopDetectionHook() }], maxIterations: 50 });
    const outcome = await agent.run("read a", { sessionId: "s" });
    expect(outcome.status).toBe("finished");
    if (outcome.status !== "finished") return;
    expect(outcome.result.stopReason).toBe("loop_detected");
    expect(outcome.result.iterations).toBe(13);
    expect(provider.requests).toHaveLength(12);
    expect(provider.requests[10].messages.at(-1)?.content).toContain("<system-reminder>");
  });
});
