import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../llm/messages";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { InMemorySessionMemory } from "../../react/session-memory";
import { todoListOf } from "../../tools/builtin/todo-list";
import { todoWriteTool } from "../../tools/builtin/todo-write-tool";
import { HookRunner } from "../hook-runner";
import { registerTreeAwareHooks } from "./register-tree-aware-hooks";
import { TODO_CONTINUATION_PRIORITY, TodoContinuationHook } from "./todo-continuation-hook";

const write = (todos: Array<{ content: string; status: string }>) => ({ toolCalls: [{ name: "todo_write", args: { todos } }] });

/** An assistant message calling todo_write with `todos`, and the tool's answer. */
const written = (id: string, todos: unknown, isError = false): ChatMessage[] => [
  { role: "assistant", content: "", toolCalls: [{ id, name: "todo_write", arguments: JSON.stringify({ todos }) }] },
  { role: "tool", toolCallId: id, name: "todo_write", content: isError ? "failed" : "saved", isError },
];

describe("todo_write tool and todoListOf", () => {
  it("the tool answers with the counts; the list is its latest successful call in the conversation", async () => {
    const out = await todoWriteTool().execute({ todos: [{ content: "a", status: "pending" }] }, { signal: new AbortController().signal, callId: "c", sessionId: "s", turnId: "t" });
    expect(out).toContain("1 open");
    const messages = [
      ...written("1", [{ content: "a", status: "pending" }]),
      ...written("2", [{ content: "b", status: "pending" }]),
      ...written("3", [{ content: "refused", status: "pending" }], true),
      ...written("4", [{ content: "", status: "bad" }]),
    ];
    expect(todoListOf(messages)).toEqual([{ content: "b", status: "pending" }]);
    expect(todoListOf([])).toEqual([]);
  });
});

describe("TodoContinuationHook", () => {
  it("continues a completed turn while todos are open, with the list in the reminder, until they are done", async () => {
    const provider = new ScriptedProvider([
      write([{ content: "step one", status: "in_progress" }, { content: "step two", status: "pending" }]),
      { text: "Did step one." },
      write([{ content: "step one", status: "completed" }, { content: "step two", status: "completed" }]),
      { text: "All done." },
    ]);
    const runner = registerTreeAwareHooks(new HookRunner());
    const agent = new ReactAgent({ provider, tools: [todoWriteTool()], hooks: runner, maxTurns: 3 });
    const outcome = await agent.run("do it", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ stopReason: "completed", content: "All done.", turnAttempts: 2 });
    expect(provider.requests[2].messages.at(-1)?.content).toContain("- [in_progress] step one");
  });

  it("a list written in an earlier turn is read from the session's memory, by any agent on that memory", async () => {
    const memory = new InMemorySessionMemory();
    await memory.save("s", [{ role: "user", content: "plan" }, ...written("1", [{ content: "carry over", status: "pending" }]), { role: "assistant", content: "Planned." }]);
    const provider = new ScriptedProvider([{ text: "Hello." }, write([{ content: "carry over", status: "completed" }]), { text: "Done." }]);
    const agent = new ReactAgent({ provider, tools: [todoWriteTool()], hooks: [{ hook: new TodoContinuationHook() }], memory, maxTurns: 3 });
    const outcome = await agent.run("hi", { sessionId: "s" });
    expect(provider.requests[1].messages.at(-1)?.content).toContain("- [pending] carry over");
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ content: "Done.", turnAttempts: 2 });
  });

  it("deadlock prevention: no progress since the last nudge lets the turn end", async () => {
    const memory = new InMemorySessionMemory();
    await memory.save("s", written("1", [{ content: "stuck", status: "pending" }]));
    const provider = new ScriptedProvider(() => ({ text: "I am not doing it." }));
    const agent = new ReactAgent({ provider, tools: [todoWriteTool()], hooks: [{ hook: new TodoContinuationHook() }], memory, maxTurns: 10 });
    const outcome = await agent.run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.turnAttempts).toBe(2);
  });

  it("at the ceiling, a progressing agent gets the one-time renewal", async () => {
    let n = 0;
    const provider = new ScriptedProvider(() => {
      n += 1;
      return n % 2 === 1 ? write([{ content: `item ${n}`, status: "pending" }]) : { text: "progress" };
    });
    const agent = new ReactAgent({ provider, tools: [todoWriteTool()], hooks: [{ hook: new TodoContinuationHook() }], maxTurns: 2 });
    const outcome = await agent.run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.turnAttempts).toBe(3);
  });

  it("is wired first among AFTER_TURN hooks, and a roster-declared hook of the same name wins", () => {
    const roster = new TodoContinuationHook();
    const runner = new HookRunner().register({ hook: roster, name: "todo_continuation" });
    registerTreeAwareHooks(runner);
    expect(runner.hooksFor("AFTER_TURN")[0]).toBe(roster);
    expect(TODO_CONTINUATION_PRIORITY).toBe(-1000);
    const fresh = registerTreeAwareHooks(new HookRunner());
    expect(fresh.hooksFor("AFTER_TURN").map((h) => h.name)).toEqual(["TodoContinuationHook", "LengthGuardHook"]);
    const graphNode = registerTreeAwareHooks(new HookRunner(), { deliverTool: "deliver" });
    expect(graphNode.hooksFor("AFTER_TURN").map((h) => h.name)).toEqual(["TodoContinuationHook", "DeliverRetryHook", "LengthGuardHook"]);
  });
});
