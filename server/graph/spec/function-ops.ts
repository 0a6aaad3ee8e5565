import { z } from "zod";
import type { NodeContext } from "../context";
import type { DeliveredInput } from "../node";
import type { NodeFunction } from "../nodes/function-node";
import type { GraphStateSchema } from "../state";
import { refersTo } from "./spec-refs";
import { COMPARISONS, compareValues, readPath, renderTemplate, unwrapValue } from "./spec-values";
import { writeStateField, type StateFieldTypes } from "./state-writes";

/**
 * The `function` node's safe, declarative operations. No code is evaluated: each op is a fixed
 * transformation configured by data. Every op but `route_if` handles each delivered input on its
 * own and delivers one result per input, to `next` (or the node's single downstream edge).
 */

const next = z.string().optional().describe("Target node of the result; needed only when the node has several outgoing edges.").meta(refersTo("node"));
const field = z.string().describe("Name of a state field declared under `state`.").meta(refersTo("state_field"));

export const MAP_FUNCTIONS = ["upper", "lower", "trim", "length", "double", "square", "negate", "not", "to_string", "to_number", "words"] as const;

export const FunctionOpSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("identity").describe("Deliver each input unchanged."), next }).strict(),
  z
    .object({
      op: z.literal("template").describe("Deliver a string rendered from a template."),
      template: z.string().describe("Text with {{input}}, {{input.key}} or {{state.field}} placeholders."),
      next,
    })
    .strict(),
  z
    .object({
      op: z.literal("set_state").describe("Write a state field, then deliver the input unchanged."),
      field,
      value: z.unknown().optional().describe("Literal value to write; when omitted, the input is written."),
      next,
    })
    .strict(),
  z
    .object({
      op: z.literal("increment").describe("Add `by` to a numeric state field and deliver the new value."),
      field,
      by: z.number().default(1).describe("Amount to add (may be negative)."),
      next,
    })
    .strict(),
  z
    .object({
      op: z.literal("map").describe("Apply a built-in function to the input (to each element of a list input)."),
      fn: z.enum(MAP_FUNCTIONS).describe("upper, lower, trim, length, double, square, negate, not, to_string, to_number or words."),
      next,
    })
    .strict(),
  z
    .object({
      op: z.literal("route_if").describe("Deliver the input to `then` when the condition holds, else to `else`."),
      field: z.string().optional().describe("State field to test (dotted path allowed); when omitted, the input is tested.").meta(refersTo("state_field")),
      compare: z.enum(COMPARISONS).default("eq").describe("eq, ne, lt, lte, gt, gte, in (value is a list) or truthy."),
      value: z.unknown().optional().describe("Right-hand side of the comparison (unused by truthy)."),
      then: z.string().describe("Node that receives the input when the condition holds.").meta(refersTo("node")),
      else: z.string().describe("Node that receives the input otherwise.").meta(refersTo("node")),
    })
    .strict(),
]);

export type FunctionOp = z.output<typeof FunctionOpSchema>;

type Fn = NodeFunction<GraphStateSchema>;
type State = Record<string, unknown>;

/** Each delivered input as a plain value; a node woken without rows sees one null. */
function values(input: readonly DeliveredInput[]): unknown[] {
  return input.length === 0 ? [null] : input.map((i) => unwrapValue(i.content));
}

function perInput(op: { next?: string }, f: (value: unknown, state: State) => unknown): Fn {
  return (ctx: NodeContext<GraphStateSchema>, input) => {
    for (const v of values(input)) ctx.deliver(f(v, ctx.state as State), op.next ?? null);
  };
}

/** The op's body; `types`: the spec's state fields, so a `set_state` of a mistyped value fails its node. */
export function functionOpBody(op: FunctionOp, types: StateFieldTypes = new Map()): Fn {
  switch (op.op) {
    case "identity":
      return perInput(op, (v) => v);
    case "template":
      return perInput(op, (input, state) => renderTemplate(op.template, { input, state }));
    case "set_state":
      return perInput(op, (v, state) => {
        writeStateField(state, types, op.field, op.value === undefined ? v : op.value);
        return v;
      });
    case "increment":
      return perInput(op, (_v, state) => {
        const current = state[op.field];
        return (state[op.field] = (typeof current === "number" ? current : 0) + op.by);
      });
    case "map":
      return perInput(op, (v) => (Array.isArray(v) ? v.map((x) => applyMap(op.fn, x)) : applyMap(op.fn, v)));
    case "route_if":
      return (ctx, input) => {
        for (const v of values(input)) {
          const subject = op.field === undefined ? v : readPath(ctx.state, op.field);
          ctx.deliver(v, compareValues(subject, op.compare, op.value) ? op.then : op.else);
        }
      };
  }
}

function applyMap(fn: (typeof MAP_FUNCTIONS)[number], v: unknown): unknown {
  const text = typeof v === "string" ? v : v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const num = typeof v === "number" ? v : Number(v);
  switch (fn) {
    case "upper":
      return text.toUpperCase();
    case "lower":
      return text.toLowerCase();
    case "trim":
      return text.trim();
    case "length":
      return Array.isArray(v) ? v.length : text.length;
    case "double":
      return num * 2;
    case "square":
      return num * num;
    case "negate":
      return -num;
    case "not":
      return !v;
    case "to_string":
      return text;
    case "to_number":
      return num;
    case "words":
      return text.split(/\s+/).filter(Boolean);
  }
}
