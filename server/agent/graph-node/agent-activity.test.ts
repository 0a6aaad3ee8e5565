import { describe, expect, it } from "vitest";
import { AgentActivityReporter, type AgentActivity } from "./agent-activity";

describe("AgentActivityReporter", () => {
  it("summarises a tool call with its arguments' JSON as the model wrote it, not escaped again", () => {
    const seen: AgentActivity[] = [];
    const reporter = new AgentActivityReporter({ activity: (a) => seen.push(a) });
    const call = { id: "c1", name: "deliver", arguments: '{"target":"writer","content":"hi"}' };
    reporter.onEvent({ type: "llm_event", turnId: "t1", event: { type: "tool_call_complete", call } });
    expect(seen.find((a) => a.kind === "tool_call")?.summary).toBe('deliver({"target":"writer","content":"hi"})');
  });
});
