import { newSnowflake } from "@/server/graph/ids";
import type { NewDeliverRow, NodeInvocation } from "@/server/graph/persistence/records";

/**
 * A deliver of `content` to node `target` (id `node_<target>`) of an instance: from an invocation, or
 * from outside the graph when `from` is null.
 */
export function ledgerRow(instanceId: string, from: NodeInvocation | null, target: string, content: unknown): NewDeliverRow {
  return {
    deliverId: newSnowflake(),
    instanceId,
    sourceNode: from?.nodeName ?? "__external__",
    sourceNodeId: from?.nodeId ?? "node_external",
    sourceInvocationId: from?.invocationId ?? null,
    targetNode: target,
    targetNodeId: `node_${target}`,
    content,
    createdAt: Date.now(),
  };
}
