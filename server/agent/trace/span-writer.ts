import { randomBytes } from "node:crypto";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, isSpanContextValid, trace, type Context, type Tracer } from "@opentelemetry/api";
import { describeError } from "../errors";
import { consoleLogger, type AgentLogger } from "../logger";
import type { TurnState } from "../state/turn-state";
import type { SpanAttributeValue, SpanRecord, SpanSink } from "./span-record";
import { Modex } from "./genai-attributes";
import type { OpenSpan, TraceSession } from "./trace-session";

export interface SpanWriterOptions {
  sink: SpanSink;
  /** Mirror spans to OpenTelemetry; defaults to the global tracer (a no-op until an SDK is registered). */
  tracer?: Tracer;
  now?: () => number;
  logger?: AgentLogger;
}

export interface StartSpan {
  key: string;
  name: string;
  kind?: SpanRecord["kind"];
  /** Key of the open parent span; none for a root. */
  parent?: string;
  /** Parent by id, for a parent that already ended (a handoff under its tool batch). */
  parentSpanId?: string;
  attributes?: Record<string, SpanAttributeValue>;
  startTime?: number;
}

export interface EndSpan {
  attributes?: Record<string, SpanAttributeValue>;
  status?: SpanRecord["status"];
  endTime?: number;
}

/**
 * Opens and closes spans for the span hooks (shared, immutable configuration). Each span is mirrored to
 * an OpenTelemetry span whose ids it adopts when a real SDK is recording, so the database and OTLP agree;
 * with the no-op tracer it mints W3C ids itself. A finished span is written to the sink; a failing sink
 * is logged, never fatal.
 */
export class SpanWriter {
  private readonly tracer: Tracer;
  readonly now: () => number;
  private readonly logger: AgentLogger;

  constructor(private readonly options: SpanWriterOptions) {
    this.tracer = options.tracer ?? trace.getTracer("modex-agent");
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? consoleLogger;
  }

  start(session: TraceSession, turn: TurnState, spec: StartSpan): OpenSpan {
    const open = spec.parent ? session.open.get(spec.parent) : undefined;
    const parent: ParentRef | undefined = open ? { spanId: open.record.spanId, otel: open.otel } : spec.parentSpanId ? { spanId: spec.parentSpanId } : undefined;
    const startTime = spec.startTime ?? this.now();
    const otel = this.tracer.startSpan(
      spec.name,
      { kind: spec.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, startTime, attributes: spec.attributes },
      parentContext(session, parent),
    );
    const sc = otel.spanContext();
    // Adopt the ids only of a span an SDK records: the no-op tracer hands back the parent's context.
    const real = otel.isRecording() && isSpanContextValid(sc);
    if (!parent && real) session.traceId = sc.traceId;
    const started: OpenSpan = {
      otel,
      record: {
        traceId: session.traceId,
        spanId: real ? sc.spanId : newSpanId(),
        ...(parent ? { parentSpanId: parent.spanId } : {}),
        name: spec.name,
        kind: spec.kind ?? "internal",
        startTime,
        attributes: { ...spec.attributes },
        status: { code: "unset" },
        sessionId: turn.sessionId,
        turnId: turn.turnId,
      },
    };
    session.open.set(spec.key, started);
    return started;
  }

  end(session: TraceSession, key: string, spec: EndSpan = {}): SpanRecord | undefined {
    const open = session.open.get(key);
    if (!open) return undefined;
    session.open.delete(key);
    const record: SpanRecord = {
      ...open.record,
      attributes: { ...open.record.attributes, ...spec.attributes },
      status: spec.status ?? open.record.status,
      endTime: spec.endTime ?? this.now(),
    };
    if (open.otel) {
      if (spec.attributes) open.otel.setAttributes(spec.attributes);
      if (record.status.code !== "unset") {
        open.otel.setStatus({ code: record.status.code === "ok" ? SpanStatusCode.OK : SpanStatusCode.ERROR, message: record.status.message });
      }
      open.otel.end(record.endTime);
    }
    this.write(record);
    return record;
  }

  /**
   * The suspend leg: the turn will resume later, maybe in another process, so every open span's live
   * OpenTelemetry half is ended now (marked `modex.suspended`) while its record stays open in the turn's
   * persisted trace session and is written when the resumed leg closes it.
   */
  suspendLive(session: TraceSession): void {
    const at = this.now();
    for (const open of session.open.values()) {
      open.otel?.setAttribute(Modex.SUSPENDED, true);
      open.otel?.end(at);
      open.otel = undefined;
    }
  }

  private write(record: SpanRecord): void {
    try {
      const pending = this.options.sink.write(record);
      if (pending) pending.catch((e: unknown) => this.logger.warn(`span sink failed: ${describeError(e)}`, { span: record.name }));
    } catch (e) {
      this.logger.warn(`span sink failed: ${describeError(e)}`, { span: record.name });
    }
  }
}

/** Random bytes drawn from a pooled buffer: ids need uniqueness, and one syscall per span is costly. */
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + bytes);
  offset += bytes;
  return hex;
}

export function newTraceId(): string {
  return randomHex(16);
}

function newSpanId(): string {
  return randomHex(8);
}

/** The live parent when we still hold it; else a remote context rebuilt from its ids (after a resume). */
interface ParentRef {
  spanId: string;
  otel?: OpenSpan["otel"];
}

function parentContext(session: TraceSession, parent: ParentRef | undefined): Context {
  if (!parent) return ROOT_CONTEXT;
  if (parent.otel) return trace.setSpan(ROOT_CONTEXT, parent.otel);
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: session.traceId, spanId: parent.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
}
