import { describe, expect, it } from "vitest";
import { memoryTokens, modelTokens, spanKind, waterfall, type SpanDto } from "./trace-tree";

const span = (spanId: string, parentSpanId: string | undefined, name: string, startTime: number, endTime: number, attributes: SpanDto["attributes"] = {}): SpanDto => ({
  traceId: "t".repeat(32),
  spanId,
  ...(parentSpanId ? { parentSpanId } : {}),
  name,
  kind: "internal",
  startTime,
  endTime,
  attributes,
  status: { code: "ok" },
  sessionId: "s",
  turnId: "u",
});

describe("waterfall", () => {
  it("orders parents before children by start time, with bars on the trace's time axis and tokens per model call", () => {
    const rows = waterfall([
      span("b", "a", "iteration 1", 10, 60),
      span("c", "b", "chat modex-demo", 12, 40, { "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 7 }),
      span("a", undefined, "invoke_agent assistant", 0, 100),
      span("d", "b", "execute_tool run_graph", 41, 60),
      span("e", "gone", "orphan", 90, 100),
    ]);
    expect(rows.map((r) => [r.span.spanId, r.depth])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
      ["d", 2],
      ["e", 0],
    ]);
    expect(rows[2]).toMatchObject({ offset: 0.12, width: 0.28, durationMs: 28, tokens: { input: 30, output: 7, estimated: false } });
    expect(rows[0].tokens).toBeNull();
    expect(rows.map((r) => spanKind(r.span.name))).toEqual(["agent", "iteration", "model", "tool", "other"]);
  });

  it("reads where a resumed turn picked up as a resume (an instant: its bar keeps a visible width)", () => {
    expect(spanKind("resumed after a restart, from the end of step 2")).toBe("resume");
    expect(spanKind("resumed after the approval decision, in step 1")).toBe("resume");
    const rows = waterfall([span("a", undefined, "invoke_agent coder", 0, 1000), span("r", "a", "resumed after a restart, from the end of step 2", 600, 600)]);
    expect(rows[1]).toMatchObject({ depth: 1, offset: 0.6, durationMs: 0 });
    expect(rows[1].width).toBeGreaterThan(0);
  });

  it("marks a model call's tokens estimated when its span says so (modex.usage.estimated); the total says so if any is", () => {
    const rows = waterfall([
      span("a", undefined, "invoke_agent assistant", 0, 100, { "gen_ai.usage.input_tokens": 40, "gen_ai.usage.output_tokens": 9, "modex.usage.estimated": true }),
      span("b", "a", "chat m", 1, 40, { "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 7 }),
      span("c", "a", "chat m", 41, 60, { "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2, "modex.usage.estimated": true }),
    ]);
    expect(rows.map((r) => r.tokens?.estimated)).toEqual([true, false, true]);
    // The agent's own total is not added again: the model calls make up the sum.
    expect(modelTokens(rows)).toEqual({ total: 49, estimated: true });
    expect(modelTokens(rows.slice(0, 2))).toEqual({ total: 37, estimated: false });
  });

  it("reads a memory cleanup span as memory, with the context tokens before and after", () => {
    expect(spanKind("memory cleanup")).toBe("memory");
    expect(memoryTokens({ "modex.memory.tokens_before": 900, "modex.memory.tokens_after": 300 })).toEqual({ before: 900, after: 300 });
    expect(memoryTokens({ "gen_ai.usage.input_tokens": 5 })).toBeNull();
  });
});
