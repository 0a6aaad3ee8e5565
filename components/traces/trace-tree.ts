import type { RouterOutputs } from "@/server/api/root";

export type SpanDto = RouterOutputs["chat"]["trace"]["spans"][number];

/** A span placed in the waterfall: its depth under its parent, and its bar as fractions of the trace. */
export interface WaterfallRow {
  span: SpanDto;
  depth: number;
  offset: number;
  width: number;
  durationMs: number;
  /** `estimated`: the span's counts are Modex's estimate (`modex.usage.estimated`): the provider reported none. */
  tokens: { input: number; output: number; estimated: boolean } | null;
}

const num = (v: unknown): number | null => (typeof v === "number" ? v : null);

/**
 * The spans as a tree in time order (a parent before its children, siblings by start), with each bar's
 * place on the trace's time axis. A span whose parent is missing (another trace, or not yet written)
 * is drawn at the top level.
 */
export function waterfall(spans: readonly SpanDto[]): WaterfallRow[] {
  if (spans.length === 0) return [];
  const start = Math.min(...spans.map((s) => s.startTime));
  const end = Math.max(...spans.map((s) => s.endTime));
  const total = Math.max(end - start, 1);
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | null, SpanDto[]>();
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : null;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const rows: WaterfallRow[] = [];
  const visit = (parent: string | null, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.startTime - b.startTime)) {
      const input = num(span.attributes["gen_ai.usage.input_tokens"]);
      const output = num(span.attributes["gen_ai.usage.output_tokens"]);
      rows.push({
        span,
        depth,
        offset: (span.startTime - start) / total,
        width: Math.max((span.endTime - span.startTime) / total, 0.002),
        durationMs: span.endTime - span.startTime,
        tokens: input === null && output === null ? null : { input: input ?? 0, output: output ?? 0, estimated: span.attributes["modex.usage.estimated"] === true },
      });
      visit(span.spanId, depth + 1);
    }
  };
  visit(null, 0);
  return rows;
}

/** The model calls' tokens added up; `estimated` when any of them is an estimate. */
export function modelTokens(rows: readonly WaterfallRow[]): { total: number; estimated: boolean } {
  let total = 0;
  let estimated = false;
  for (const r of rows) {
    if (spanKind(r.span.name) !== "model" || !r.tokens) continue;
    total += r.tokens.input + r.tokens.output;
    estimated ||= r.tokens.estimated;
  }
  return { total, estimated };
}

/**
 * What a span is, for its colour: the agent, an iteration, a model call, a tool call, a memory cleanup,
 * where a resumed turn picked up (server/agent/trace/resume-span-hook.ts), or other.
 */
export function spanKind(name: string): "agent" | "iteration" | "model" | "tool" | "memory" | "resume" | "other" {
  if (name.startsWith("invoke_agent")) return "agent";
  if (name.startsWith("resumed after")) return "resume";
  if (name.startsWith("iteration")) return "iteration";
  if (name.startsWith("chat")) return "model";
  if (name.startsWith("execute_tool")) return "tool";
  if (name.startsWith("memory")) return "memory";
  return "other";
}

/** A memory cleanup span's context size before and after (server/agent/memory/memory-trace-hook.ts); null for other spans. */
export function memoryTokens(attributes: Record<string, unknown>): { before: number; after: number } | null {
  const before = attributes["modex.memory.tokens_before"];
  const after = attributes["modex.memory.tokens_after"];
  return typeof before === "number" && typeof after === "number" ? { before, after } : null;
}
