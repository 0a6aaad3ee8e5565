import { z } from "zod";
import { DelayNode } from "../nodes/delay-node";
import { FunctionNode } from "../nodes/function-node";
import { GraphAsNode } from "../nodes/graph-as-node";
import { HumanInputNode } from "../nodes/human-input-node";
import { FunctionOpSchema, functionOpBody, type FunctionOp } from "./function-ops";
import { NodeRegistry, type NodeFactory, type NodeFactoryContext } from "./node-registry";
import { joinBody, JOIN_REDUCERS, REDUCER_TYPES } from "./join-reducers";
import { refersTo } from "./spec-refs";
import { unwrapValue } from "./spec-values";
import { stateFieldAccepts, valueTypeOf, type StateFieldType } from "./state-spec";

const next = z.string().optional().describe("Target node of the delivery; needed only when the node has several outgoing edges.").meta(refersTo("node"));

/** A state field named in a config must be declared; a numeric op needs a number (or any) field. */
function checkField(ctx: NodeFactoryContext, name: string | undefined, at: string, numeric = false): void {
  if (name === undefined) return;
  const head = name.split(".")[0];
  const type = ctx.stateFields.get(head);
  if (type === undefined) ctx.report(["config", at], `state field "${head}" is not declared under state`);
  else if (numeric && type !== "number" && type !== "any") ctx.report(["config", at], `state field "${head}" is ${type}, not number`);
}

/**
 * A state field a node writes (set_state, increment, join's `into`): declared, and a whole field, not a
 * dotted path (a write to "a.b" would store a key the state schema drops). Its type, or undefined.
 */
function writtenField(ctx: NodeFactoryContext, name: string | undefined, at: string, numeric = false): StateFieldType | undefined {
  if (name === undefined) return undefined;
  if (name.includes(".")) {
    ctx.report(["config", at], `"${name}" is a path: a node writes a whole state field, name the field`);
    return undefined;
  }
  checkField(ctx, name, at, numeric);
  return ctx.stateFields.get(name);
}

export const functionNodeType: NodeFactory<FunctionOp> = {
  type: "function",
  description: "Runs one safe declarative operation (template, set_state, increment, map, route_if, identity) and delivers its result.",
  configSchema: FunctionOpSchema,
  routesBySelf: (c) => c.op === "route_if",
  routes: (c) =>
    c.op === "route_if"
      ? [{ at: ["then"], target: c.then }, { at: ["else"], target: c.else }]
      : c.next !== undefined ? [{ at: ["next"], target: c.next }] : [],
  create(name, config, ctx) {
    if (config.op === "set_state" || config.op === "increment") {
      const type = writtenField(ctx, config.field, "field", config.op === "increment");
      if (config.op === "set_state" && type !== undefined && config.value !== undefined && !stateFieldAccepts(type, config.value)) {
        ctx.report(["config", "value"], `state field "${config.field}" is ${type}, not ${valueTypeOf(config.value)}`);
      }
    } else if ("field" in config) checkField(ctx, config.field, "field");
    return new FunctionNode(name, functionOpBody(config, ctx.stateFields), ctx.options);
  },
};

const DelayConfig = z
  .object({
    ms: z.number().int().min(0).max(86_400_000).optional().describe("Delay in milliseconds."),
    seconds: z.number().min(0).max(86_400).optional().describe("Delay in seconds (fractions allowed)."),
    seconds_from_input: z
      .string()
      .min(1)
      .optional()
      .describe("A key of the run's input: when the run starts with an object input holding a number there, wait that many seconds instead (e.g. pace_seconds)."),
    next,
  })
  .strict()
  .refine((c) => (c.ms === undefined) !== (c.seconds === undefined), { message: "give exactly one of ms or seconds", path: ["ms"] });

export const delayNodeType: NodeFactory<z.output<typeof DelayConfig>> = {
  type: "delay",
  description: "Sleeps for a configured duration, then delivers what it received: for rate limiting and pacing.",
  configSchema: DelayConfig,
  routes: (c) => (c.next !== undefined ? [{ at: ["next"], target: c.next }] : []),
  create: (name, c, ctx) => new DelayNode(name, { ...ctx.options, ms: c.ms ?? Math.round((c.seconds ?? 0) * 1000), next: c.next ?? null, secondsFromInput: c.seconds_from_input ?? null }),
};

const HumanInputConfig = z
  .object({ prompt: z.string().min(1).describe("What the human is asked; shown by the UI and the CLI."), next })
  .strict();

export const humanInputNodeType: NodeFactory<z.output<typeof HumanInputConfig>> = {
  type: "human_input",
  description: "Suspends the run with a prompt; on resume it delivers the human's answer downstream.",
  configSchema: HumanInputConfig,
  routes: (c) => (c.next !== undefined ? [{ at: ["next"], target: c.next }] : []),
  create: (name, c, ctx) => new HumanInputNode(name, { ...ctx.options, prompt: c.prompt, next: c.next ?? null }),
};

const SubgraphConfig = z
  .object({ spec: z.string().describe("Name of an entry under the spec's `subgraphs`.").meta(refersTo("subgraph")), next })
  .strict();

export const subgraphNodeType: NodeFactory<z.output<typeof SubgraphConfig>> = {
  type: "subgraph",
  description: "Runs a named subgraph from `subgraphs` on the shared state and delivers its result.",
  configSchema: SubgraphConfig,
  routes: (c) => (c.next !== undefined ? [{ at: ["next"], target: c.next }] : []),
  create(name, c, ctx) {
    const inner = ctx.subgraph(c.spec, ["config", "spec"]);
    // Unresolved: a placeholder keeps the topology checkable while the issue is reported.
    if (!inner) return new FunctionNode(name, () => undefined, ctx.options);
    return new GraphAsNode(name, inner, ctx.options);
  },
};

const FanOutConfig = z
  .object({
    targets: z.array(z.string().meta(refersTo("node"))).min(1).describe("Nodes that receive the items; item i goes to targets[i mod n]."),
    field: z.string().optional().describe("State field holding the list; when omitted, the input is the list.").meta(refersTo("state_field")),
    default_items: z.array(z.unknown()).optional().describe("Items used when the input (or field) is not a list."),
  })
  .strict();

export const fanOutNodeType: NodeFactory<z.output<typeof FanOutConfig>> = {
  type: "fan_out",
  description: "Delivers each item of a list to its target node, round-robin across `targets` (a map step).",
  configSchema: FanOutConfig,
  routesBySelf: () => true,
  routes: (c) => c.targets.map((target, i) => ({ at: ["targets", i], target })),
  create(name, c, ctx) {
    checkField(ctx, c.field, "field");
    return new FunctionNode(name, (nctx, input) => {
      const source = c.field !== undefined ? (nctx.state as Record<string, unknown>)[c.field] : unwrapValue(input[0]?.content);
      const items = Array.isArray(source) ? source : (c.default_items ?? [source]);
      items.forEach((item, i) => nctx.deliver(item, c.targets[i % c.targets.length]));
      return undefined;
    }, ctx.options);
  },
};

const JoinConfig = z
  .object({
    reduce: z.enum(JOIN_REDUCERS).default("list").describe("How to combine the inputs: list, sum, count, min, max, concat (flatten lists) or join (strings)."),
    separator: z.string().default(", ").describe("Separator of the join reducer."),
    into: z.string().optional().describe("State field that also receives the combined value.").meta(refersTo("state_field")),
    next,
  })
  .strict();

export const joinNodeType: NodeFactory<z.output<typeof JoinConfig>> = {
  type: "join",
  description: "Waits for every branch (ON_ALL_PREDS), combines all delivered values into one and delivers it (a reduce step).",
  configSchema: JoinConfig,
  routes: (c) => (c.next !== undefined ? [{ at: ["next"], target: c.next }] : []),
  create(name, c, ctx) {
    const type = writtenField(ctx, c.into, "into");
    if (type !== undefined && type !== "any" && type !== REDUCER_TYPES[c.reduce]) {
      ctx.report(["config", "into"], `state field "${c.into}" is ${type}; reduce ${c.reduce} makes a ${REDUCER_TYPES[c.reduce]}`);
    }
    return new FunctionNode(name, joinBody(c, ctx.stateFields), { ...ctx.options, next: c.next ?? null });
  },
};

export const BUILTIN_NODE_TYPES: readonly NodeFactory[] = [
  functionNodeType,
  delayNodeType,
  humanInputNodeType,
  subgraphNodeType,
  fanOutNodeType,
  joinNodeType,
];

/** A registry holding the built-in node types; register more on it for custom ones. */
export function createBuiltinNodeRegistry(): NodeRegistry {
  return new NodeRegistry(BUILTIN_NODE_TYPES);
}
