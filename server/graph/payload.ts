import { z } from "zod";

/** Frozen, strict content type for static-graph I/O: user input, delivers into END, the result. */
export const GraphPayloadSchema = z
  .object({
    content: z.unknown(),
    source: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type GraphPayload = Readonly<z.infer<typeof GraphPayloadSchema>>;

/** Parses (strictly) and freezes a payload. Throws a ZodError on unknown keys. */
export function graphPayload(input: z.input<typeof GraphPayloadSchema>): GraphPayload {
  const parsed = isContentAndSource(input) ? contentAndSource(input) : GraphPayloadSchema.parse(input);
  if (parsed.metadata) Object.freeze(parsed.metadata);
  return Object.freeze(parsed);
}

/**
 * True for the shape nearly every payload has, a plain object of `content` and a string `source`
 * (or `content` alone), which the schema accepts as it is: a payload is made for the run's input and
 * for every delivery into END, and checked again on its way, so the parser is kept for the rest.
 */
function isContentAndSource(input: object): input is { content: unknown; source?: string } {
  if (Object.getPrototypeOf(input) !== Object.prototype || !Object.hasOwn(input, "content")) return false;
  for (const key in input) if (key !== "content" && key !== "source") return false;
  const source = (input as { source?: unknown }).source;
  return source === undefined ? !Object.hasOwn(input, "source") : typeof source === "string";
}

function contentAndSource({ content, source }: { content: unknown; source?: string }): z.output<typeof GraphPayloadSchema> {
  return source === undefined ? { content } : { content, source };
}

/** True for payloads built by `graphPayload`, or plain objects of the same strict shape. */
export function isGraphPayload(value: unknown): value is GraphPayload {
  if (typeof value !== "object" || value === null) return false;
  if (isContentAndSource(value)) return true;
  return GraphPayloadSchema.safeParse(value).success && "content" in value;
}

/**
 * `value` as a frozen GraphPayload: kept when it already is one, re-frozen when it has the shape (read
 * back from a store, say), otherwise wrapped as `{ content: value, source }`.
 */
export function toGraphPayload(value: unknown, source?: string): GraphPayload {
  if (isGraphPayload(value)) return Object.isFrozen(value) ? value : graphPayload(value);
  return graphPayload(source === undefined ? { content: value } : { content: value, source });
}

/** The marker START delivers to the resume target, carrying the caller's resume value. */
export interface ResumeSignal<V = unknown> {
  readonly __resume__: true;
  readonly value: V;
}

export const resumeSignal = <V>(value: V): ResumeSignal<V> =>
  Object.freeze({ __resume__: true as const, value });

export const isResumeSignal = (x: unknown): x is ResumeSignal =>
  typeof x === "object" && x !== null && (x as { __resume__?: unknown }).__resume__ === true;
