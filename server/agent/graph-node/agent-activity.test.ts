import { describe, expect, it } from "vitest";
import { AgentActivityReporter, type AgentActivity, type AgentLiveDelta } from "./agent-activity";

describe("AgentActivityReporter", () => {
  it("summarises a tool call with its arguments' JSON as the model wrote it, not escaped again", () => {
    const seen: AgentActivity[] = [];
    const reporter = new AgentActivityReporter({ activity: (a) => seen.push(a) });
    const call = { id: "c1", name: "deliver", arguments: '{"target":"writer","content":"hi"}' };
    reporter.onEvent({ type: "llm_event", turnId: "t1", event: { type: "tool_call_complete", call } });
    expect(seen.find((a) => a.kind === "tool_call")?.summary).toBe('deliver({"target":"writer","content":"hi"})');
  });

  it("ends a model call's live text once it is a message, and says so when the turn ends", () => {
    const seen: AgentActivity[] = [];
    const deltas: AgentLiveDelta[] = [];
    const reporter = new AgentActivityReporter({ activity: (a) => seen.push(a), delta: (d) => deltas.push(d) });
    for (const text of ["Thinking ", "about it."]) reporter.onEvent({ type: "llm_event", turnId: "t1", attempt: 1, iteration: 2, event: { type: "text_delta", text } });
    reporter.onEvent({ type: "llm_event", turnId: "t1", attempt: 1, iteration: 2, event: { type: "finish", reason: "stop" } } as never);
    expect(deltas.map((d) => [d.channel, d.text])).toEqual([["text", "Thinking "], ["text", "about it."], ["end", ""]]);
    expect(seen.find((a) => a.kind === "message")).toMatchObject({ text: "Thinking about it." });
    reporter.endLive("t1");
    expect(deltas.at(-1)).toEqual({ turnId: "t1", attempt: 1, iteration: 2, channel: "end", text: "" });
  });
});
