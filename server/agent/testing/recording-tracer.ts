import { randomBytes } from "node:crypto";
import { ROOT_CONTEXT, trace, type Attributes, type AttributeValue, type Context, type Link, type Span, type SpanContext, type SpanOptions, type SpanStatus, type TimeInput, type Tracer } from "@opentelemetry/api";

/** A minimal recording OpenTelemetry span (what an SDK would export). */
export class RecordedOtelSpan implements Span {
  readonly attributes: Attributes;
  status: SpanStatus = { code: 0 };
  ended = false;
  endTime: TimeInput | undefined;

  constructor(
    public name: string,
    private readonly context: SpanContext,
    readonly parentSpanId: string | undefined,
    readonly options: SpanOptions,
  ) {
    this.attributes = { ...options.attributes };
  }

  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    this.ended = true;
    this.endTime = endTime;
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {}
}

/** A Tracer that records spans and honours parent contexts, like the SDK would. */
export class RecordingTracer implements Tracer {
  readonly spans: RecordedOtelSpan[] = [];

  startSpan(name: string, options: SpanOptions = {}, context: Context = ROOT_CONTEXT): Span {
    const parent = trace.getSpanContext(context);
    const spanContext = { traceId: parent?.traceId ?? randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex"), traceFlags: 1 };
    const span = new RecordedOtelSpan(name, spanContext, parent?.spanId, options);
    this.spans.push(span);
    return span;
  }

  startActiveSpan(..._args: unknown[]): never {
    throw new Error("RecordingTracer does not support startActiveSpan");
  }
}
