import { describe } from "vitest";
import { spanSinkTests } from "./testing/span-sink-suite";
import { InMemorySpanSink, type SpanRecord, type TurnCursor, type TurnFilter } from "@/server/agent/trace/span-record";

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
    turnRoots: (after: TurnCursor | null, limit: number, filter: TurnFilter) => {
      const newer = (a: { startTime: number; spanId: string }, b: { startTime: number; spanId: string }) => b.startTime - a.startTime || (a.spanId < b.spanId ? 1 : a.spanId > b.spanId ? -1 : 0);
      return kept()
        .filter((s) => !s.parentSpanId && (filter.source === "all" || s.sessionId.includes(":") === (filter.source === "node")) && (!filter.errorsOnly || s.status.code === "error") && (!filter.trainingOnly || s.attributes["gen_ai.training.relevant"] === true))
        .filter((s) => !after || newer(after, s) < 0)
        .sort(newer)
        .slice(0, limit);
    },
    chooseTraining: (spanId: string, included: boolean) => {
      const root = kept().find((s) => s.spanId === spanId && !s.parentSpanId);
      if (!root) return null;
      const chosen = { ...root, attributes: { ...root.attributes, "gen_ai.training.relevant": included, "modex.training.chosen": true } };
      sink.spans.push(chosen);
      return chosen;
    },
  };
}

describe("SpanSink in memory", () => {
  const sink = new InMemorySpanSink();
  spanSinkTests({ sink: () => sink, reader: () => readsOf(sink) });
});
