import { nodePolicyOf } from "./policy-spec";
import type { CompiledGraph } from "../compiled-graph";
import { TopologyError } from "../errors";
import { Graph, type CompileOptions } from "../graph";
import { END, START } from "../names";
import type { Node } from "../node";
import type { GraphStateSchema } from "../state";
import type { GraphSpec, SubgraphSpec } from "./graph-spec";
import type { NodeFactoryContext, NodeRegistry } from "./node-registry";
import { specIssue, type SpecIssue, type SpecPath } from "./spec-errors";
import { checkSpecEdges, mapTopologyIssues, type PlacedNode } from "./spec-topology-checks";
import type { StateFieldType } from "./state-spec";

/** What every graph of one spec (the main graph and its subgraphs) is built against. */
export interface SpecBuildScope {
  readonly registry: NodeRegistry;
  readonly spec: GraphSpec;
  readonly state: GraphStateSchema;
  readonly stateFields: ReadonlyMap<string, StateFieldType>;
  readonly issues: SpecIssue[];
}

type GraphFields = Pick<SubgraphSpec, "nodes" | "edges" | "scheduler" | "max_iterations">;
type AnyNodeSpec = { node_type: string; description?: string; config: unknown; name?: string } & Parameters<typeof nodePolicyOf>[0];

/**
 * Builds and compiles one graph of a spec. Problems go to `scope.issues`; the result is null when
 * any were found (including in the subgraphs it embeds). `stack` holds the subgraphs being built,
 * so a subgraph that embeds itself is reported instead of recursing forever.
 */
export function buildSpecGraph(args: {
  scope: SpecBuildScope;
  name: string;
  fields: GraphFields;
  path: SpecPath;
  stack: readonly string[];
  compile?: Pick<CompileOptions, "nodeIdMap" | "onWarning">;
}): CompiledGraph<GraphStateSchema> | null {
  const { scope, fields, path } = args;
  const before = scope.issues.length;
  const entries: [string | undefined, AnyNodeSpec, SpecPath][] = Array.isArray(fields.nodes)
    ? (fields.nodes as AnyNodeSpec[]).map((n, i) => [n.name, n, [...path, "nodes", i]])
    : Object.entries(fields.nodes as Record<string, AnyNodeSpec>).map(([k, n]) => [k, n, [...path, "nodes", k]]);

  const graph = new Graph({ name: args.name, state: scope.state });
  const placed: PlacedNode[] = [];
  const seen = new Set<string>();
  for (const [name, node, at] of entries) {
    if (name === undefined) continue;
    if (seen.has(name)) {
      scope.issues.push(specIssue("schema", Array.isArray(fields.nodes) ? [...at, "name"] : at, `node "${name}" is declared twice`));
      continue;
    }
    seen.add(name);
    const factory = scope.registry.get(node.node_type)!;
    graph.addNode(factory.create(name, node.config, factoryContext(args, at, node)) as Node<GraphStateSchema>);
    placed.push({ name, path: at, routes: factory.routes?.(node.config) ?? [], routesBySelf: factory.routesBySelf?.(node.config) ?? false });
  }
  const edges = { path: [...path, "edges"], edges: fields.edges };
  const edgeIssues = checkSpecEdges(placed, edges);
  scope.issues.push(...edgeIssues);
  // An edge to an unknown node would only cascade into reachability noise; stop at the cause.
  const known = new Set([...seen, START, END]);
  if (fields.edges.some((e) => !known.has(e.from) || !known.has(e.to))) return null;
  for (const e of fields.edges) graph.addEdge(e.from, e.to);
  try {
    const compiled = graph.compile({ ...args.compile, scheduler: fields.scheduler, maxIterations: fields.max_iterations });
    return scope.issues.length === before ? compiled : null;
  } catch (error) {
    if (!(error instanceof TopologyError)) throw error;
    scope.issues.push(...mapTopologyIssues(error.issues, placed, edges));
    return null;
  }
}

function factoryContext(
  args: Parameters<typeof buildSpecGraph>[0],
  at: SpecPath,
  node: AnyNodeSpec,
): NodeFactoryContext {
  const { scope, stack } = args;
  return {
    path: at,
    stateFields: scope.stateFields,
    options: { description: node.description, triggerMode: "ON_ALL_PREDS", policy: nodePolicyOf(node, scope.spec.defaults) },
    report: (rel, message) =>
      scope.issues.push(specIssue(rel[0] === "config" ? "config" : "reference", [...at, ...rel], message)),
    subgraph(name, rel) {
      const where = [...at, ...rel];
      const sub = Object.hasOwn(scope.spec.subgraphs, name) ? scope.spec.subgraphs[name] : undefined;
      if (!sub) {
        const known = Object.keys(scope.spec.subgraphs);
        scope.issues.push(specIssue("reference", where, `unknown subgraph "${name}"; ${known.length ? `declared: ${known.join(", ")}` : "none is declared under subgraphs"}`));
        return null;
      }
      if (stack.includes(name)) {
        scope.issues.push(specIssue("reference", where, `subgraph "${name}" embeds itself (${[...stack, name].join(" → ")})`));
        return null;
      }
      return buildSpecGraph({ scope, name, fields: sub, path: ["subgraphs", name], stack: [...stack, name] });
    },
  };
}
