import { z } from "zod";

const AttributeValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.array(z.number())]);

/** The persisted shape of a span (a database implementation validates rows with it). */
export const SpanRecordSchema = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  name: z.string(),
  kind: z.enum(["internal", "client"]),
  startTime: z.number(),
  endTime: z.number(),
  attributes: z.record(z.string(), AttributeValueSchema),
  status: z.object({ code: z.enum(["unset", "ok", "error"]), message: z.string().optional() }),
  sessionId: z.string(),
  turnId: z.string(),
});

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

/** A place in the list of agent turns, newest first: the root span a page ended at. */
export interface TurnCursor {
  startTime: number;
  spanId: string;
}

/**
 * Which turns a listing keeps: a chat's, a graph node's, or all; `errorsOnly` keeps failed ones,
 * `trainingOnly` those whose root span says `gen_ai.training.relevant` true (the hook's tag or a person's choice).
 */
export interface TurnFilter {
  source: "all" | "chat" | "node";
  errorsOnly: boolean;
  trainingOnly?: boolean;
}

/**
 * Reads back the root span of each finished agent turn (stores that keep spans). A node's turns are
 * under session `<instance>:<node>`, a chat's under the chat's id (which has no colon).
 */
export interface TurnRootIndex {
  /** Root spans newest first (start time, then span id), strictly after `after` in that order. */
  turnRoots(after: TurnCursor | null, limit: number, filter: TurnFilter): SpanRecord[] | Promise<SpanRecord[]>;
  /**
   * A person's choice for a turn (its root span `spanId`): kept on the root span as `gen_ai.training.relevant`
   * with `modex.training.chosen` true, over the hook's tag. The root span as it now is; null: no such turn.
   */
  chooseTraining(spanId: string, included: boolean): SpanRecord | null | Promise<SpanRecord | null>;
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
