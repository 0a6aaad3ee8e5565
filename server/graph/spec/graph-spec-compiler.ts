import type { CompiledGraph } from "../compiled-graph";
import type { CompileOptions } from "../graph";
import type { GraphStateSchema } from "../state";
import { createBuiltinNodeRegistry } from "./builtin-node-types";
import { buildGraphSpecSchema, type GraphSpec, type GraphSpecSchema } from "./graph-spec";
import type { NodeRegistry } from "./node-registry";
import { buildSpecGraph, type SpecBuildScope } from "./spec-graph-builder";
import { SpecError, specIssue, type SpecIssue } from "./spec-errors";
import { buildStateSchema } from "./state-spec";
import { specIssuesFromZod } from "./zod-issues";

export interface SpecCompileOptions {
  /** Persisted identities to re-bind (an instance's frozen node_id_map), subgraph nodes as `sub/inner`. */
  nodeIdMap?: Readonly<Record<string, string>>;
  onWarning?: CompileOptions["onWarning"];
}

export interface CompiledSpec {
  readonly spec: GraphSpec;
  readonly graph: CompiledGraph<GraphStateSchema>;
}

/**
 * GraphSpec → CompiledGraph: parses with the schema of its registry, builds every node through
 * its NodeFactory (START and END are always created), then lets the TopologyValidator check the
 * structure before anything runs. Every problem is collected into one SpecError.
 */
export class GraphSpecCompiler {
  readonly registry: NodeRegistry;
  readonly schema: GraphSpecSchema;

  constructor(registry: NodeRegistry = createBuiltinNodeRegistry()) {
    this.registry = registry;
    this.schema = buildGraphSpecSchema(registry);
  }

  /** Validates plain data (e.g. parsed YAML) as a GraphSpec. Throws SpecError. */
  parse(input: unknown): GraphSpec {
    const parsed = this.schema.safeParse(input);
    if (!parsed.success) throw new SpecError(specIssuesFromZod(parsed.error.issues, input));
    return parsed.data;
  }

  /** Parses and compiles. Throws SpecError only. */
  compile(input: unknown, options: SpecCompileOptions = {}): CompiledSpec {
    const spec = this.parse(input);
    return { spec, graph: this.compileParsed(spec, options) };
  }

  /** Every issue of `input`, or an empty list when it compiles. */
  validate(input: unknown): readonly SpecIssue[] {
    try {
      this.compile(input);
      return [];
    } catch (error) {
      if (error instanceof SpecError) return error.issues;
      throw error;
    }
  }

  compileParsed(spec: GraphSpec, options: SpecCompileOptions = {}): CompiledGraph<GraphStateSchema> {
    const state = buildStateSchema(spec.state);
    const scope: SpecBuildScope = {
      registry: this.registry,
      spec,
      state: state.schema,
      stateFields: new Map(Object.entries(spec.state).map(([k, f]) => [k, f.type])),
      issues: [...state.issues],
    };
    let graph: CompiledGraph<GraphStateSchema> | null = null;
    try {
      graph = buildSpecGraph({ scope, name: spec.name, fields: spec, path: [], stack: [], compile: options });
    } catch (error) {
      // A factory or the engine failed in a way no check foresaw: still a spec error, never a crash.
      scope.issues.push(specIssue("schema", [], `could not compile: ${error instanceof Error ? error.message : String(error)}`));
    }
    const issues = dedupe(scope.issues);
    if (issues.length > 0 || !graph) throw new SpecError(issues.length ? issues : [specIssue("schema", [], "could not compile")]);
    return graph;
  }
}

function dedupe(issues: readonly SpecIssue[]): SpecIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.pathText}\u0000${i.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

const defaultCompiler = new GraphSpecCompiler();

/** Compiles a GraphSpec with the built-in node types. Throws SpecError only. */
export function compileGraphSpec(input: unknown, options: SpecCompileOptions = {}): CompiledSpec {
  return defaultCompiler.compile(input, options);
}
