import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { GraphContext } from "@/server/graph/context";
import type { EngineObserver } from "@/server/graph/events";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import type { GraphStateSchema } from "@/server/graph/state";

/**
 * A context that continues a persisted instance, as a new process would build it: the graph re-bound to
 * the instance's frozen node_id_map, the shared state and the version's input loaded from the store.
 * (The orchestrator in server/services does the same for the app; the db tests cannot import it.)
 */
export async function continueInstance<S extends GraphStateSchema>(
  graph: CompiledGraph<S>,
  coordinator: GraphPersistenceCoordinator,
  instanceId: string,
  observer?: EngineObserver,
): Promise<{ graph: CompiledGraph<S>; ctx: GraphContext<S> }> {
  const record = await coordinator.instances.load(instanceId);
  if (!record) throw new Error(`no instance ${instanceId}`);
  const bound = graph.withNodeIds(record.nodeIdMap);
  const state = (await coordinator.instances.loadState(instanceId)) as Record<string, unknown> | null;
  const io = (await coordinator.instances.ioRecords(instanceId)).find((r) => r.version === record.version);
  const ctx = bound.createContext({ coordinator, instanceId, observer, input: io?.input, state: (state ?? undefined) as never });
  return { graph: bound, ctx };
}

/** Marks a RUNNING instance crashed (its process is gone) and re-runs it with bootstrap RECOVERY. */
export async function recoverInstance<S extends GraphStateSchema>(
  graph: CompiledGraph<S>,
  coordinator: GraphPersistenceCoordinator,
  instanceId: string,
  observer?: EngineObserver,
) {
  const record = await coordinator.instances.load(instanceId);
  if (record?.status === "running") await coordinator.instances.transition(instanceId, "crashed");
  const { graph: bound, ctx } = await continueInstance(graph, coordinator, instanceId, observer);
  return bound.run(ctx, "recovery");
}
