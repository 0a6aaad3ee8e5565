/** A finished span, as written to the app database (for the UI) and mirrored to OpenTelemetry. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: "internal" | "client";
  /** Epoch ms. */
  startTime: number;
  endTime: number;
  attributes: Record<string, SpanAttributeValue>;
  status: { code: "unset" | "ok" | "error"; message?: string };
  sessionId: string;
  turnId: string;
}

export type SpanAttributeValue = string | number | boolean | string[] | number[];

/** Receives finished spans. The app implements it over its database; writes are fire-and-forget. */
export interface SpanSink {
  write(span: SpanRecord): void | Promise<void>;
}

export class InMemorySpanSink implements SpanSink {
  readonly spans: SpanRecord[] = [];

  write(span: SpanRecord): void {
    this.spans.push(span);
  }

  named(prefix: string): SpanRecord[] {
    return this.spans.filter((s) => s.name.startsWith(prefix));
  }
}
