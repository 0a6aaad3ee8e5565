import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { parseSpecYaml } from "@/server/spec/parse-spec-yaml";
import type { GraphCatalog } from "./cluster-worker";

/**
 * The graphs a worker can run: every spec (*.yml, *.yaml) in `dir`, compiled once at start by graph
 * name, with `compiler`'s node types (the agent setup's registry, so agent nodes compile; default: the
 * built-in ones). A spec that does not compile is reported and left out; an instance of a graph not in
 * the folder fails its job. Instances are matched by graph name only (see specServiceCatalog for spec
 * ids).
 */
export function specFolderCatalog(dir: string, compiler?: GraphSpecCompiler): { catalog: GraphCatalog; names: string[] } {
  const graphs = new Map<string, CompiledGraph<any>>();
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    try {
      const { graph } = parseSpecYaml(readFileSync(path.join(dir, file), "utf8"), compiler ? { compiler } : undefined);
      graphs.set(graph.name, graph);
    } catch (error) {
      console.warn(`[modex worker] ${file} not compiled: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  const catalog: GraphCatalog = ({ graphName: name }) => {
    const graph = graphs.get(name);
    if (!graph) throw new Error(`graph ${name} is not in the workers' spec folder ${dir}`);
    return graph;
  };
  return { catalog, names: [...graphs.keys()] };
}
