/** How the results of the extensions at one point are combined (the spec's InvocationMode). */
export const InvocationMode = {
  /** Call every enabled extension; return the list of values they returned (null/undefined left out). */
  COLLECT: "COLLECT",
  /** Chain through `ctx.data[transformKey]`: each returned value replaces it; return the final value. */
  TRANSFORM: "TRANSFORM",
  /** Call in order until one returns a truthy value; return it (undefined when none did). */
  UNTIL_HANDLED: "UNTIL_HANDLED",
  /** Call in order; an explicit `false` stops the loop and the invocation returns false, else true. */
  CANCELLABLE: "CANCELLABLE",
} as const;
export type InvocationMode = (typeof InvocationMode)[keyof typeof InvocationMode];

/** A runtime kind for TRANSFORM's type check (the spec's `expected_type`); see `kindOf`. */
export type ValueKind = "string" | "number" | "boolean" | "array" | "object";

/**
 * How to invoke one point. A TRANSFORM without its key cannot be written: the union makes the spec's
 * "transform_key required for TRANSFORM" a compile-time rule.
 */
export type InvocationConfig =
  | { mode: "COLLECT" }
  | { mode: "TRANSFORM"; transformKey: string; expectedType?: ValueKind }
  | { mode: "UNTIL_HANDLED" }
  | { mode: "CANCELLABLE" };

/** The kind of a value as the type check names it: arrays and null are told apart from objects. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The spec's None: both null and undefined mean "no value" (a method that returns nothing gives undefined). */
export function isNone(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}
