import { z } from "zod";
import { PolicyDefaultsSchema, RetrySpecSchema, TimeoutSpecSchema } from "./policy-spec";
import { END, START } from "../names";
import { createBuiltinNodeRegistry } from "./builtin-node-types";
import type { NodeRegistry } from "./node-registry";
import { SchedulesSchema } from "./schedule-spec";
import { StateSpecSchema } from "./state-spec";

/**
 * The GraphSpec format, as zod schemas built from a NodeRegistry: the single source of truth for
 * validation, for the TypeScript types and for the editor's JSON Schema (`graphSpecJsonSchema`).
 * Each node is a variant of a union discriminated on `node_type`, with that type's config schema,
 * so an editor completes `config` keys once `node_type` is known. docs/spec-format.md describes it.
 */

export const NODE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const nodeName = z
  .string()
  .regex(NODE_NAME, "node names start with a letter or _ and hold only letters, digits, _ . -")
  .refine((n) => n !== START && n !== END, { message: `${START} and ${END} are created by the compiler; do not declare them` })
  .describe("Unique node name; edges and routing refer to it.");

const ON_RECEIVE_REJECTED =
  "trigger ON_RECEIVE is deprecated and not accepted in specs; use ON_ALL_PREDS (the default), which waits for every active branch";

const trigger = z
  .literal("ON_ALL_PREDS", {
    error: (iss) => (iss.input === "ON_RECEIVE" ? ON_RECEIVE_REJECTED : "trigger must be ON_ALL_PREDS"),
  })
  .default("ON_ALL_PREDS")
  .describe("When the node starts: ON_ALL_PREDS waits until every activated predecessor that could still reach it has delivered. (ON_RECEIVE is rejected.)");

const edgeEnd = (what: string) => z.string().min(1).describe(`${what} node name (${START} and ${END} are the entry and exit).`);

export const EdgeSpecSchema = z
  .object(
    { from: edgeEnd("Source"), to: edgeEnd("Target") },
    { error: (iss) => (iss.code === "invalid_type" ? "an edge is written { from: <node>, to: <node> }" : undefined) },
  )
  .strict()
  .describe("A topology edge: `from` may deliver to `to`. Routing is decided at run time by each node.");

export const SchedulerSchema = z
  .enum(["linear", "parallel"])
  .default("linear")
  .describe("linear (default): one node at a time. parallel: fan-out branches run concurrently.");

const maxIterations = z.number().int().positive().optional().describe("Panic net: node executions per run before the run fails (default 10,000).");

function nodeVariants(registry: NodeRegistry, named: boolean) {
  const variants = registry.list().map((f) =>
    z
      .object({
        ...(named ? { name: nodeName } : {}),
        node_type: z.literal(f.type).describe(f.description),
        description: z.string().optional().describe("What the node is for (shown in the editor and the instance view)."),
        trigger,
        retry: RetrySpecSchema.optional(),
        timeout_ms: TimeoutSpecSchema.optional(),
        config: f.configSchema.describe(`Configuration of a ${f.type} node.`),
      })
      .strict()
      .describe(f.description),
  );
  if (variants.length === 0) throw new Error("a NodeRegistry needs at least one node type");
  return z.discriminatedUnion("node_type", variants as [(typeof variants)[number], ...(typeof variants)[number][]]);
}

function nodesSchema(registry: NodeRegistry) {
  return z
    .union([
      z.array(nodeVariants(registry, true)).describe("Nodes as a list; each has a `name`."),
      z.record(nodeName, nodeVariants(registry, false)).describe("Nodes as a map: name → node."),
    ])
    .describe("The graph's nodes (START and END are implicit): a list of { name, node_type, config }, or a map name → { node_type, config }.");
}

function topologyFields(registry: NodeRegistry) {
  return {
    description: z.string().optional().describe("What the graph does."),
    scheduler: SchedulerSchema,
    max_iterations: maxIterations,
    nodes: nodesSchema(registry),
    edges: z.array(EdgeSpecSchema).default([]).describe(`Topology edges as { from, to }. Use ${START} for the entry and ${END} for the exit.`),
  };
}

/** Builds the GraphSpec schema for the node types of `registry`. */
export function buildGraphSpecSchema(registry: NodeRegistry) {
  const subgraph = z
    .object(topologyFields(registry))
    .strict()
    .describe("An inline graph used by `subgraph` nodes. It shares the parent's state and declares none of its own.");
  return z
    .object({
      name: z.string().min(1).describe("Name of the graph; specs are stored and listed by name."),
      version: z.union([z.string(), z.number()]).optional().describe("Display label of this revision (not a lookup key)."),
      ...topologyFields(registry),
      state: StateSpecSchema.default({}),
      defaults: PolicyDefaultsSchema.optional(),
      subgraphs: z.record(z.string().regex(NODE_NAME), subgraph).default({}).describe("Named inline graphs, referenced by `subgraph` nodes as config.spec."),
      schedules: SchedulesSchema,
    })
    .strict()
    .describe("A Modex graph spec: nodes with a node_type and config, topology edges, state and scheduler.");
}

export type GraphSpecSchema = ReturnType<typeof buildGraphSpecSchema>;
export type GraphSpec = z.output<GraphSpecSchema>;
export type GraphSpecInput = z.input<GraphSpecSchema>;
export type SubgraphSpec = GraphSpec["subgraphs"][string];
export type NodeSpec = Extract<GraphSpec["nodes"], readonly unknown[]>[number];

/** The schema of the built-in node types. */
export const GraphSpecSchema = buildGraphSpecSchema(createBuiltinNodeRegistry());

/** JSON Schema of the spec format (input side, so defaults are optional), for editor completion and hover docs. */
export function graphSpecJsonSchema(registry?: NodeRegistry): Record<string, unknown> {
  const schema = registry ? buildGraphSpecSchema(registry) : GraphSpecSchema;
  return z.toJSONSchema(schema, { io: "input", target: "draft-7", unrepresentable: "any" }) as Record<string, unknown>;
}
