import type { z } from "zod";
import type { CompiledGraph } from "../compiled-graph";
import type { Node, NodeOptions } from "../node";
import type { GraphStateSchema } from "../state";
import type { SpecPath } from "./spec-errors";
import type { StateFieldType } from "./state-spec";

/** What a factory may ask of the compiler while it builds one node. */
export interface NodeFactoryContext {
  /** The spec path of the node being built, e.g. `["nodes", 2]`. */
  readonly path: SpecPath;
  /** State fields the spec declares: name → type. */
  readonly stateFields: ReadonlyMap<string, StateFieldType>;
  /** Description and trigger mode from the spec, to pass to the node's constructor. */
  readonly options: NodeOptions;
  /** Records a problem at `path` + `at` (relative to the node, e.g. `["config", "field"]`). */
  report(at: SpecPath, message: string): void;
  /** Compiles a named entry of the spec's `subgraphs` (a fresh graph per call), or reports and returns null. */
  subgraph(name: string, at: SpecPath): CompiledGraph<GraphStateSchema> | null;
}

/** A node target the node may deliver to, named in its config; the compiler checks an edge exists. */
export interface NodeRoute {
  readonly at: SpecPath;
  readonly target: string;
}

/**
 * Builds one `node_type`. `configSchema` is the single source of truth for the node's `config`:
 * it validates specs and yields the editor's JSON Schema.
 */
export interface NodeFactory<C = any> {
  readonly type: string;
  readonly description: string;
  readonly configSchema: z.ZodType<C>;
  /** True when the node picks among several downstream edges by itself (route_if, fan_out). */
  routesBySelf?(config: C): boolean;
  /** Targets named in the config; each must be an edge of the node. */
  routes?(config: C): readonly NodeRoute[];
  create(name: string, config: C, ctx: NodeFactoryContext): Node<GraphStateSchema>;
}

/** The node types a compiler knows, by `node_type`. */
export class NodeRegistry {
  private readonly factories = new Map<string, NodeFactory>();

  constructor(factories: readonly NodeFactory[] = []) {
    for (const f of factories) this.register(f);
  }

  register(factory: NodeFactory): this {
    if (this.factories.has(factory.type)) throw new Error(`node_type "${factory.type}" is already registered`);
    this.factories.set(factory.type, factory);
    return this;
  }

  get(type: string): NodeFactory | undefined {
    return this.factories.get(type);
  }

  types(): string[] {
    return [...this.factories.keys()];
  }

  list(): NodeFactory[] {
    return [...this.factories.values()];
  }
}
