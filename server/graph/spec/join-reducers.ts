import type { NodeFunction } from "../nodes/function-node";
import type { GraphStateSchema } from "../state";
import { unwrapValue } from "./spec-values";
import { writeStateField, type StateFieldTypes } from "./state-writes";

export const JOIN_REDUCERS = ["list", "sum", "count", "min", "max", "concat", "join"] as const;
export type JoinReducer = (typeof JOIN_REDUCERS)[number];

/** Combines every delivered value (in delivery order) into one; non-numbers count as 0 for sums. */
export function reduceValues(reducer: JoinReducer, values: readonly unknown[], separator: string): unknown {
  const nums = values.map((v) => (typeof v === "number" ? v : Number(v) || 0));
  switch (reducer) {
    case "list":
      return [...values];
    case "sum":
      return nums.reduce((a, b) => a + b, 0);
    case "count":
      return values.length;
    case "min":
      return nums.length === 0 ? null : Math.min(...nums);
    case "max":
      return nums.length === 0 ? null : Math.max(...nums);
    case "concat":
      return values.flatMap((v) => (Array.isArray(v) ? v : [v]));
    case "join":
      return values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(separator);
  }
}

/** The state-field type each reducer produces (min and max of nothing: null). */
export const REDUCER_TYPES = { list: "array", concat: "array", sum: "number", count: "number", min: "number", max: "number", join: "string" } as const;

export function joinBody(c: { reduce: JoinReducer; separator: string; into?: string }, types: StateFieldTypes = new Map()): NodeFunction<GraphStateSchema> {
  return (ctx, input) => {
    const combined = reduceValues(c.reduce, input.map((i) => unwrapValue(i.content)), c.separator);
    if (c.into !== undefined) writeStateField(ctx.state as Record<string, unknown>, types, c.into, combined);
    return combined;
  };
}
