import { describe, expect, it } from "vitest";
import { type ChatEventDto, foldChat, prettyArguments, startedInstanceOf } from "./chat-transcript";

let seq = 0;
const ev = (turnId: string, body: Record<string, unknown>) => ({ seq: ++seq, sessionId: "s", turnId, at: 1000 + seq, ...body }) as ChatEventDto;

describe("foldChat", () => {
  it("keeps where earlier messages were summarized on the turn it happened in, with every message still there", () => {
    const turns = foldChat([
      ev("t1", { type: "user_message", text: "First" }),
      ev("t1", { type: "turn_completed", stopReason: "completed", content: "One.", tokens: 5, error: null }),
      ev("t2", { type: "user_message", text: "Second" }),
      ev("t2", { type: "context_summarized", summary: "The user said First.", mode: "consolidated", prunedMessages: 2, coveredMessages: 2, tokensBefore: 900, tokensAfter: 300 }),
      ev("t2", { type: "turn_completed", stopReason: "completed", content: "Two.", tokens: 5, error: null }),
    ]);
    expect(turns.map((t) => t.user)).toEqual(["First", "Second"]);
    expect(turns[0].summaries).toEqual([]);
    expect(turns[1].summaries).toEqual([{ messages: 2, tokensBefore: 900, tokensAfter: 300, mode: "consolidated", summary: "The user said First." }]);
  });

  it("turns a chat's events into turns: streamed text, tools with their results, the final state", () => {
    const turns = foldChat([
      ev("t1", { type: "user_message", text: "Plan my day" }),
      ev("t1", { type: "text_delta", text: "Let me " }),
      ev("t1", { type: "tool_call", callId: "c1", name: "todo_write", arguments: "{}" }),
      ev("t1", { type: "tool_result", callId: "c1", name: "todo_write", content: "saved", isError: false }),
      ev("t1", { type: "text_delta", text: "plan." }),
      ev("t1", { type: "turn_completed", stopReason: "completed", content: "Here is your plan.", tokens: 12, error: null }),
      ev("t2", { type: "user_message", text: "More" }),
      ev("t2", { type: "text_delta", text: "Partial" }),
    ]);
    expect(turns).toHaveLength(2);
    expect(turns[0]).toMatchObject({ user: "Plan my day", text: "Here is your plan.", state: "completed", note: null });
    expect(turns[0].tools).toEqual([{ callId: "c1", name: "todo_write", arguments: "{}", result: { content: "saved", isError: false }, approval: null }]);
    expect(turns[1]).toMatchObject({ text: "Partial", state: "running" });
  });

  it("text streamed before a tool call stays in the transcript, in order, after the turn completes", () => {
    const [turn] = foldChat([
      ev("p", { type: "user_message", text: "plan my offsite" }),
      ev("p", { type: "text_delta", text: "Planning " }),
      ev("p", { type: "text_delta", text: "first. " }),
      ev("p", { type: "tool_call", callId: "c1", name: "todo_write", arguments: "{}" }),
      ev("p", { type: "tool_result", callId: "c1", name: "todo_write", content: "saved", isError: false }),
      ev("p", { type: "text_delta", text: "Done" }),
      ev("p", { type: "turn_completed", stopReason: "completed", content: "Done: three steps.", tokens: 9, error: null }),
    ]);
    expect(turn.parts).toEqual([
      { kind: "text", text: "Planning first. " },
      { kind: "tool", callId: "c1" },
      { kind: "text", text: "Done: three steps." },
    ]);
    expect(turn.text).toBe("Done: three steps.");
  });

  it("a turn resumed after a restart drops what streamed after its checkpoint (it streams again), keeps its finished tools, and says so", () => {
    const [turn] = foldChat([
      ev("r", { type: "user_message", text: "read a" }),
      ev("r", { type: "text_delta", text: "Fetching. " }),
      ev("r", { type: "tool_call", callId: "c1", name: "fetch", arguments: "{}" }),
      ev("r", { type: "tool_result", callId: "c1", name: "fetch", content: "page", isError: false }),
      // After the checkpoint: an answer in progress and a call whose result never came, then the crash.
      ev("r", { type: "text_delta", text: "Also " }),
      ev("r", { type: "tool_call", callId: "c2", name: "fetch", arguments: "{}" }),
      ev("r", { type: "notice", command: "resume", text: "resumed after a restart, from the end of step 1", isError: false }),
      ev("r", { type: "text_delta", text: "The page " }),
    ]);
    expect(turn.tools.map((t) => t.callId)).toEqual(["c1"]);
    expect(turn.parts).toEqual([{ kind: "text", text: "Fetching. " }, { kind: "tool", callId: "c1" }, { kind: "text", text: "The page " }]);
    expect(turn).toMatchObject({ text: "The page ", state: "running" });
    expect(turn.notices).toEqual([{ kind: "command", text: "resumed after a restart, from the end of step 1", isError: false }]);
  });

  it("a stopped turn keeps what streamed and says so; a failed one says why", () => {
    const turns = foldChat([
      ev("a", { type: "user_message", text: "x" }),
      ev("a", { type: "text_delta", text: "Half an ans" }),
      ev("a", { type: "turn_completed", stopReason: "cancelled", content: "The turn was cancelled.", tokens: 0, error: null }),
      ev("b", { type: "user_message", text: "y" }),
      ev("b", { type: "turn_failed", message: "connection refused" }),
      ev("c", { type: "user_message", text: "z" }),
      ev("c", { type: "turn_completed", stopReason: "error", content: "", tokens: 0, error: "model server answered 503" }),
    ]);
    expect(turns[0]).toMatchObject({ text: "Half an ans", state: "stopped", note: "cancelled" });
    expect(turns[1]).toMatchObject({ state: "failed", note: "connection refused" });
    expect(turns[2]).toMatchObject({ state: "failed", note: "model server answered 503" });
  });

  it("a turn a busy-input INTERRUPT ended is stopped, keeps what streamed, and says it was interrupted", () => {
    const turns = foldChat([
      ev("a", { type: "user_message", text: "x" }),
      ev("a", { type: "text_delta", text: "Once upon" }),
      ev("a", { type: "busy_input", mode: "INTERRUPT", text: "shorter" }),
      ev("a", { type: "turn_completed", stopReason: "interrupted", content: "Once upon", tokens: 0, error: null }),
    ]);
    expect(turns[0]).toMatchObject({ text: "Once upon", state: "stopped", note: "interrupted", usage: null });
  });

  it("a stopped turn whose tokens were estimated (the provider's usage was cut off) shows them, marked estimated", () => {
    const [turn] = foldChat([
      ev("a", { type: "user_message", text: "x" }),
      ev("a", { type: "text_delta", text: "Once upon" }),
      ev("a", { type: "turn_completed", stopReason: "cancelled", content: "The turn was cancelled.", tokens: 12, inputTokens: 9, outputTokens: 3, estimated: true, error: null }),
    ]);
    expect(turn).toMatchObject({ state: "stopped", usage: { input: 9, output: 3, total: 12, estimated: true } });
  });

  it("a priced turn keeps its cost and currency for the footer", () => {
    const [turn] = foldChat([
      ev("a", { type: "user_message", text: "x" }),
      ev("a", { type: "turn_completed", stopReason: "completed", content: "ok", tokens: 15, inputTokens: 10, outputTokens: 5, cost: 0.000075, currency: "USD", error: null }),
    ]);
    expect(turn.usage).toEqual({ input: 10, output: 5, total: 15, cost: 0.000075, currency: "USD" });
  });

  it("a call that needs approval: the turn waits on it, then runs on once decided (who, when, why)", () => {
    const events = [
      ev("t", { type: "user_message", text: "run counter-loop" }),
      ev("t", { type: "tool_call", callId: "c1", name: "run_graph", arguments: '{"name":"counter-loop"}' }),
      ev("t", { type: "approval_requested", transactionId: "tx1", callId: "c1", name: "run_graph", arguments: '{"name":"counter-loop"}' }),
    ];
    const [waiting] = foldChat(events);
    expect(waiting.state).toBe("waiting");
    expect(waiting.tools[0].approval).toEqual({ transactionId: "tx1", state: "pending", reason: null, by: null, decidedAt: null });
    const decided = ev("t", { type: "approval_decided", transactionId: "tx1", callId: "c1", approved: false, reason: "not now", by: "you" });
    const [denied] = foldChat([...events, decided]);
    expect(denied.state).toBe("running");
    expect(denied.tools[0].approval).toEqual({ transactionId: "tx1", state: "denied", reason: "not now", by: "you", decidedAt: decided.at });
  });

  it("a run_graph result names the instance to link to; arguments print indented", () => {
    const use = { callId: "c", name: "run_graph", arguments: "{}", approval: null };
    expect(startedInstanceOf({ ...use, result: { content: '{"instanceId":"123","status":"running"}', isError: false } })).toBe("123");
    expect(startedInstanceOf({ ...use, result: { content: "The user denied this run_graph call.", isError: true } })).toBeNull();
    expect(startedInstanceOf({ ...use, name: "other", result: { content: '{"instanceId":"123"}', isError: false } })).toBeNull();
    expect(prettyArguments('{"name":"x","input":[1]}')).toBe('{\n  "name": "x",\n  "input": [\n    1\n  ]\n}');
    expect(prettyArguments("not json")).toBe("not json");
  });
});
