import type { Span } from "@opentelemetry/api";
import { ZERO_USAGE, type TokenUsage } from "../llm/token-usage";
import { TurnCustomKey } from "../state/turn-custom";
import type { TurnState } from "../state/turn-state";
import type { SpanRecord } from "./span-record";

/** A span that has started and not ended; `otel` is the live OpenTelemetry span (never persisted). */
export interface OpenSpan {
  record: Omit<SpanRecord, "endTime">;
  otel?: Span;
}

interface TraceSessionData {
  traceId: string;
  usage: TokenUsage;
  /** Open spans by key (their records; the live OpenTelemetry spans are never persisted). */
  open: Record<string, Omit<SpanRecord, "endTime">>;
  lastToolBatchSpanId?: string;
}

/**
 * The tracing state of one turn, kept in the turn's custom map (span hooks are shared; their state is
 * not). Persisted with a snapshot as its durable part only — trace id, usage so far and the records of
 * the open spans — so a suspended turn's root (and the iteration and tool batch it stopped in) stay open
 * and are closed on the resumed leg.
 */
export class TraceSession {
  readonly open = new Map<string, OpenSpan>();
  usage: TokenUsage = { ...ZERO_USAGE };
  lastToolBatchSpanId: string | undefined;

  constructor(public traceId: string) {}

  toJSON(): TraceSessionData {
    const open = Object.fromEntries([...this.open].map(([key, span]) => [key, span.record]));
    return { traceId: this.traceId, usage: this.usage, open, ...(this.lastToolBatchSpanId ? { lastToolBatchSpanId: this.lastToolBatchSpanId } : {}) };
  }

  static fromJSON(data: TraceSessionData): TraceSession {
    const session = new TraceSession(data.traceId);
    session.usage = { ...data.usage };
    session.lastToolBatchSpanId = data.lastToolBatchSpanId;
    for (const [key, record] of Object.entries(data.open)) session.open.set(key, { record });
    return session;
  }

  /** The innermost open span children attach to: the iteration span if open, else the root. */
  parentKey(): string | undefined {
    if (this.open.has(ITERATION_KEY)) return ITERATION_KEY;
    return this.open.has(ROOT_KEY) ? ROOT_KEY : undefined;
  }
}

export const ROOT_KEY = "root";
export const ITERATION_KEY = "iteration";
export const CHAT_KEY = "chat";
export const TOOL_KEY = "tool";

export const TRACE_SESSION = new TurnCustomKey<TraceSession>("trace.session");

/** The turn's trace session, revived from its persisted form after a resume; undefined before the root. */
export function traceSessionOf(turn: TurnState): TraceSession | undefined {
  const value = turn.custom.get(TRACE_SESSION) as TraceSession | TraceSessionData | undefined;
  if (!value || value instanceof TraceSession) return value;
  const revived = TraceSession.fromJSON(value);
  turn.custom.set(TRACE_SESSION, revived);
  return revived;
}
