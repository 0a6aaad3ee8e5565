import type { SpecService } from "@/server/services/spec-service";
import type { GraphCatalog } from "./cluster-worker";

/**
 * The graphs of a spec store, as the app compiles them (its SpecService, with the agent setup's node
 * registry): an instance with a `specId` runs that very revision (an unknown id fails the job rather
 * than running another revision); one without runs the latest revision of its graph name. Compiled
 * revisions are cached by the service, bound to each instance's node ids.
 */
export function specServiceCatalog(specs: Pick<SpecService, "resolve" | "compile">): GraphCatalog {
  return async (instance) => {
    const head = await specs.resolve(instance.specId ?? instance.graphName);
    return (await specs.compile(head, instance.nodeIdMap)).graph;
  };
}
