import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import { parseSpecYaml } from "@/server/spec/parse-spec-yaml";
import type { GraphCatalog } from "./cluster-worker";

/**
 * The graphs a worker can run: every spec (*.yml, *.yaml) in `dir`, compiled once at start with the
 * built-in node types, by graph name. A spec that does not compile is reported and left out; an
 * instance of a graph not in the folder fails its job (pg-boss retries it, the sweeper requeues it).
 * Agent nodes need the app's agent setup and are not available to workers yet.
 */
export function specFolderCatalog(dir: string): { catalog: GraphCatalog; names: string[] } {
  const graphs = new Map<string, CompiledGraph<any>>();
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    try {
      const { graph } = parseSpecYaml(readFileSync(path.join(dir, file), "utf8"));
      graphs.set(graph.name, graph);
    } catch (error) {
      console.warn(`[modex worker] ${file} not compiled: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  const catalog: GraphCatalog = (name) => {
    const graph = graphs.get(name);
    if (!graph) throw new Error(`graph ${name} is not in the workers' spec folder ${dir}`);
    return graph;
  };
  return { catalog, names: [...graphs.keys()] };
}
