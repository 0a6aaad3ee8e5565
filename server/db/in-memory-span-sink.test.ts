import { describe } from "vitest";
import { spanSinkTests } from "./testing/span-sink-suite";
import { InMemorySpanSink, type SpanRecord } from "@/server/agent/trace/span-record";

/** What the database sinks answer, over the spans an InMemorySpanSink kept (a span written again: its last write). */
function readsOf(sink: InMemorySpanSink) {
  const kept = () => {
    const last = new Map<string, SpanRecord>();
    for (const s of sink.spans) last.delete(s.spanId), last.set(s.spanId, s);
    return [...last.values()];
  };
  const byStart = (spans: SpanRecord[]) => spans.map((s, i) => [s, i] as const).sort(([a, i], [b, j]) => a.startTime - b.startTime || i - j).map(([s]) => s);
  return {
    trace: (traceId: string) => byStart(kept().filter((s) => s.traceId === traceId)),
    recentForSession: (sessionId: string, limit = 200) => byStart(kept().filter((s) => s.sessionId === sessionId)).reverse().slice(0, limit),
    turn: (sessionId: string, turnId: string) => byStart(kept().filter((s) => s.sessionId === sessionId && s.turnId === turnId)),
  };
}

describe("SpanSink in memory", () => {
  const sink = new InMemorySpanSink();
  spanSinkTests({ sink: () => sink, reader: () => readsOf(sink) });
});
