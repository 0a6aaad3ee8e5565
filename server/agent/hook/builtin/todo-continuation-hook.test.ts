import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { InMemoryTodoStore } from "../../tools/builtin/todo-store";
import { todoWriteTool } from "../../tools/builtin/todo-write-tool";
import { HookRunner } from "../hook-runner";
import { registerTreeAwareHooks } from "./register-tree-aware-hooks";
import { TODO_CONTINUATION_PRIORITY, TodoContinuationHook } from "./todo-continuation-hook";

const write = (todos: Array<{ content: string; status: string }>) => ({ toolCalls: [{ name: "todo_write", args: { todos } }] });

describe("todo_write tool", () => {
  it("stores the session's list", async () => {
    const store = new InMemoryTodoStore();
    const tool = todoWriteTool(store);
    const out = await tool.execute({ todos: [{ content: "a", status: "pending" }] }, { signal: new AbortController().signal, callId: "c", sessionId: "s", turnId: "t" });
    expect(out).toContain("1 open");
    expect(store.get("s")).toEqual([{ content: "a", status: "pending" }]);
  });
});

describe("TodoContinuationHook", () => {
  it("continues a completed turn while todos are open, with the list in the reminder, until they are done", async () => {
    const store = new InMemoryTodoStore();
    const provider = new ScriptedProvider([
      write([{ content: "step one", status: "in_progress" }, { content: "step two", status: "pending" }]),
      { text: "Did step one." },
      write([{ content: "step one", status: "completed" }, { content: "step two", status: "completed" }]),
      { text: "All done." },
    ]);
    const runner = registerTreeAwareHooks(new HookRunner(), { todoStore: store });
    const agent = new ReactAgent({ provider, tools: [todoWriteTool(store)], hooks: runner, maxTurns: 3 });
    const outcome = await agent.run("do it", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ stopReason: "completed", content: "All done.", turnAttempts: 2 });
    expect(provider.requests[2].messages.at(-1)?.content).toContain("- [in_progress] step one");
  });

  it("deadlock prevention: no progress since the last nudge lets the turn end", async () => {
    const store = new InMemoryTodoStore();
    store.set("s", [{ content: "stuck", status: "pending" }]);
    const provider = new ScriptedProvider(() => ({ text: "I am not doing it." }));
    const agent = new ReactAgent({ provider, hooks: [{ hook: new TodoContinuationHook(store) }], maxTurns: 10 });
    const outcome = await agent.run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.turnAttempts).toBe(2);
  });

  it("at the ceiling, a progressing agent gets the one-time renewal", async () => {
    const store = new InMemoryTodoStore();
    let n = 0;
    const provider = new ScriptedProvider(() => {
      n += 1;
      return n % 2 === 1 ? write([{ content: `item ${n}`, status: "pending" }]) : { text: "progress" };
    });
    const agent = new ReactAgent({ provider, tools: [todoWriteTool(store)], hooks: [{ hook: new TodoContinuationHook(store) }], maxTurns: 2 });
    const outcome = await agent.run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.turnAttempts).toBe(3);
  });

  it("is wired first among AFTER_TURN hooks, and a roster-declared hook of the same name wins", () => {
    const store = new InMemoryTodoStore();
    const roster = new TodoContinuationHook(store);
    const runner = new HookRunner().register({ hook: roster, name: "todo_continuation" });
    registerTreeAwareHooks(runner, { todoStore: store });
    expect(runner.hooksFor("AFTER_TURN")[0]).toBe(roster);
    expect(TODO_CONTINUATION_PRIORITY).toBe(-1000);
    const fresh = registerTreeAwareHooks(new HookRunner(), { todoStore: store });
    expect(fresh.hooksFor("AFTER_TURN").map((h) => h.name)).toEqual(["TodoContinuationHook", "LengthGuardHook"]);
    const graphNode = registerTreeAwareHooks(new HookRunner(), { todoStore: store, deliverTool: "deliver" });
    expect(graphNode.hooksFor("AFTER_TURN").map((h) => h.name)).toEqual(["TodoContinuationHook", "DeliverRetryHook", "LengthGuardHook"]);
  });
});
