import type { CompiledGraph } from "./compiled-graph";
import type { BootstrapMode, GraphContext } from "./context";
import { END, START } from "./names";
import type { RecoveryScan } from "./persistence/coordinator";

/**
 * The one entry point of every run. FRESH (new run or re-invocation) scans nothing and starts at
 * the entry node. RECOVERY (crash, pause or interrupt recovery) closes the ledger's crash windows,
 * then seeds from orphaned RUNNING invocations and PENDING delivers in topological order; a pending
 * resume target puts the entry node first; an empty seed set falls back to the entry node, unless
 * END already completed in this version (a crash after the last node, before the instance was
 * marked completed): then there is nothing left to run and the seed list is empty.
 */
export async function bootstrap(ctx: GraphContext, graph: CompiledGraph, mode: BootstrapMode): Promise<string[]> {
  if (mode === "fresh") return [START];
  // A nested (subgraph) run must not scan the whole instance: the enclosing run already closed the
  // crash windows, and its own RUNNING invocation is not an orphan.
  const scan = ctx.nested ? await pendingOnly(ctx) : await ctx.coordinator.recover(ctx.instanceId);
  const seeds = new Set<string>();
  for (const id of [...scan.orphanedNodeIds, ...scan.pendingNodeIds]) {
    const name = graph.nameOfId(id);
    if (name) seeds.add(name);
  }
  if (ctx.state.resumeTarget) seeds.add(START);
  if (seeds.size === 0) return (await endCompletedThisVersion(ctx, graph)) ? [] : [START];
  return graph.topology.sortByRank(seeds);
}

async function pendingOnly(ctx: GraphContext): Promise<RecoveryScan> {
  const rows = await ctx.coordinator.delivers.listByStatus(ctx.instanceId, ["PENDING", "CONSUMED_PENDING"]);
  return { orphanedNodeIds: [], pendingNodeIds: rows.map((r) => r.targetNodeId) };
}

async function endCompletedThisVersion(ctx: GraphContext, graph: CompiledGraph): Promise<boolean> {
  const history = await ctx.coordinator.nodes.history(ctx.instanceId, graph.nodeIdMap[END]);
  const last = history[history.length - 1];
  if (last?.status !== "COMPLETED") return false;
  const instance = await ctx.coordinator.instances.load(ctx.instanceId);
  return !instance || last.startedAt >= instance.createdAt;
}
