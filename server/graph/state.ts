import { z } from "zod";
import { GraphPayloadSchema, type GraphPayload } from "./payload";

/** Fields the engine itself reads and writes on every graph state. */
export const baseStateShape = {
  /** Set by `ctx.interrupt()` so the entry node knows where to re-enter on resume. */
  resumeTarget: z.string().nullable().default(null),
  /**
   * The answer a resume hands on, saved before the entry node runs and cleared by its commit: a resume
   * that dies before then is recovered with the answer it was given, not by asking again.
   */
  resumeWith: z.object({ value: z.unknown() }).optional(),
  /** END aggregates every delivered payload here, in delivery order. */
  result: z.array(GraphPayloadSchema).default([]),
};

export type GraphStateSchema = z.ZodObject<typeof baseStateShape & z.ZodRawShape>;

export type BaseGraphState = { resumeTarget: string | null; resumeWith?: { value: unknown }; result: GraphPayload[] };

export type StateOf<S extends GraphStateSchema> = z.output<S> & BaseGraphState;

/** Defines a graph state: a zod object schema extended with the engine's base fields. */
export function defineGraphState<T extends z.ZodRawShape>(shape: T) {
  return z.object({ ...baseStateShape, ...shape });
}

/** The state schema of graphs that keep nothing beyond the base fields. */
export const EmptyGraphState = defineGraphState({});
