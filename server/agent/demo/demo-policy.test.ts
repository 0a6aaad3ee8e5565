import { describe, expect, it } from "vitest";
import { demoReply, demoWords, type DemoRequest, type DemoTool } from "./demo-policy";

const deliver = (node: string, targets: string[]): DemoTool => ({
  name: "deliver",
  description: `You are node: ${node}. Regular text output reaches no one.`,
  parameters: { properties: { target: { enum: targets } } },
});
const kb = (actions: string[]): DemoTool => ({ name: "knowledge_base", description: "", parameters: { properties: { action: { enum: actions } } } });
const node = (name: string, targets: string[], input: string, extra: Partial<DemoRequest> = {}): DemoRequest => ({
  messages: [{ role: "system", content: `## Graph Node Context\n### Your Role\nRole of ${name}.` }, { role: "user", content: input }, ...(extra.messages ?? [])],
  tools: [deliver(name, targets), ...(extra.tools ?? [])],
});
const calls = (r: ReturnType<typeof demoReply>) => (r.toolCalls ?? []).map((c) => [c.name, c.args]);

describe("the demo model's policy", () => {
  it("as a node with a knowledge base: reads, then writes, then delivers, then ends the turn", () => {
    const input = "[Input from graph node '__start__']\nWrite add.";
    const tools = [kb(["read", "write", "edit", "ls", "grep"])];
    expect(calls(demoReply(node("coder", ["reviewer"], input, { tools })))).toEqual([["knowledge_base", { action: "read", pattern: "findings" }]]);
    const afterRead = { tools, messages: [{ role: "assistant" as const, content: "", toolCalls: [{ name: "knowledge_base", arguments: '{"action":"read"}' }] }, { role: "tool" as const, content: "(empty)" }] };
    expect(calls(demoReply(node("coder", ["reviewer"], input, afterRead)))).toEqual([["knowledge_base", { action: "write", pattern: "findings", content: "- coder: Write add. (draft 1)" }]]);
    const afterWrite = { tools, messages: [...afterRead.messages, { role: "assistant" as const, content: "", toolCalls: [{ name: "knowledge_base", arguments: '{"action":"write"}' }] }, { role: "tool" as const, content: "ok" }] };
    expect(calls(demoReply(node("coder", ["reviewer"], input, afterWrite)))).toEqual([["deliver", { target: "reviewer", content: "Task: Write add.\nResult: coder's work for reviewer (draft 1)\nStatus: ready" }]]);
    const afterDeliver = { tools, messages: [...afterWrite.messages, { role: "assistant" as const, content: "", toolCalls: [{ name: "deliver", arguments: "{}" }] }, { role: "tool" as const, content: "Delivered." }] };
    expect(demoReply(node("coder", ["reviewer"], input, afterDeliver))).toEqual({ text: "Delivered. (coder, offline demo model)", delayMs: 4 });
  });

  it("a reader only reads: no write when its knowledge_base allows read and ls", () => {
    const afterRead = { tools: [kb(["read", "ls"])], messages: [{ role: "assistant" as const, content: "", toolCalls: [{ name: "knowledge_base", arguments: '{"action":"read"}' }] }, { role: "tool" as const, content: "" }] };
    expect(calls(demoReply(node("writer", ["__end__"], "[Input from graph node 'a']\nx", afterRead)))[0][0]).toBe("deliver");
  });

  it("a reviewer sends draft 1 back with revisions and approves draft 2", () => {
    const first = calls(demoReply(node("reviewer", ["coder", "__end__"], "[Input from graph node 'coder']\nTask: add\nResult: coder's work (draft 1)")));
    expect(first).toEqual([["deliver", { target: "coder", content: expect.stringContaining("Revisions for draft 1") }]]);
    const second = calls(demoReply(node("reviewer", ["coder", "__end__"], "[Input from graph node 'coder']\nTask: add\nResult: coder's work (draft 2)")));
    expect(second).toEqual([["deliver", { target: "__end__", content: expect.stringContaining('Approved draft 2 of "add"') }]]);
  });

  it("a producer fans out to every target; a node delivering only to __end__ joins every input", () => {
    expect(calls(demoReply(node("planner", ["a", "b", "c"], "[Input from graph node '__start__']\nWhy?"))).map((c) => (c[1] as { target: string }).target)).toEqual(["a", "b", "c"]);
    const joined = calls(demoReply(node("writer", ["__end__"], "[Input from graph node 'a']\nTask: q\nResult: A found\n\n[Input from graph node 'b']\nTask: q\nResult: B found")));
    expect(joined[0][1]).toMatchObject({ target: "__end__", content: expect.stringMatching(/joining 2 input\(s\):\n- from a: A found\n- from b: B found/) });
  });

  it("in a chat: echoes, plans with todo_write, runs a graph, lists graphs", () => {
    const chat = (text: string, tools: string[] = []) => demoReply({ messages: [{ role: "user", content: text }], tools: tools.map((name) => ({ name, description: "", parameters: {} })) });
    expect(chat("hello")).toMatchObject({ text: "You said: hello. Modex is listening." });
    expect(chat("how are you today?")).toMatchObject({ text: "You said: how are you today? Modex is listening." });
    expect(calls(chat("plan my day", ["todo_write"]))[0][0]).toBe("todo_write");
    expect(calls(chat("run map-reduce", ["run_graph"]))).toEqual([["run_graph", { name: "map-reduce" }]]);
    expect(calls(chat("list graphs", ["list_graphs"]))).toEqual([["list_graphs", {}]]);
    expect(calls(chat('call everything__echo {"message": "hi"}', ["everything__echo"]))).toEqual([["everything__echo", { message: "hi" }]]);
    expect(chat("call missing_tool {}").toolCalls).toBeUndefined();
    const answered = demoReply({
      messages: [{ role: "user", content: "call everything__echo {}" }, { role: "assistant", content: "", toolCalls: [{ name: "everything__echo", arguments: "{}" }] }, { role: "tool", content: "Echo: hi" }],
      tools: [{ name: "everything__echo", description: "", parameters: {} }],
    });
    expect(answered.text).toBe("everything__echo answered: Echo: hi");
    expect(demoWords("a b  c")).toEqual(["a ", "b  ", "c"]);
  });

  it("in a chat: reminded of its open todos, completes them and says so instead of answering the message again", () => {
    const tools = [{ name: "todo_write", description: "", parameters: {} }];
    const nudge = { role: "user" as const, content: "<system-reminder>You still have 2 open todo item(s):\n- [in_progress] outline the day\n- [pending] book the room\nContinue working on them, or update the list if they are done.</system-reminder>" };
    const planned = [{ role: "user" as const, content: "plan my day" }, { role: "assistant" as const, content: "You said: plan my day. Modex is listening." }, nudge];
    const finish = demoReply({ messages: planned, tools });
    expect(calls(finish)).toEqual([["todo_write", { todos: [{ content: "outline the day", status: "completed" }, { content: "book the room", status: "completed" }] }]]);
    const done = demoReply({ messages: [...planned, { role: "assistant", content: "", toolCalls: [{ name: "todo_write", arguments: "{}" }] }, { role: "tool", content: "Todo list saved: 2 items, 0 open." }], tools });
    expect(done).toMatchObject({ text: "Done: outline the day, book the room." });
  });
});
