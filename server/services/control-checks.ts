import { newSnowflake } from "@/server/graph/ids";
import { START } from "@/server/graph/names";
import type { GraphInstanceRecord, NewDeliverRow } from "@/server/graph/persistence/records";
import { isAgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { type ApprovalRecord } from "./agents/approval-records";
import { asAuthor, type Author } from "./answer-author";
import { invalidState, ServiceError } from "./errors";
import { waitingFor, type AnswerRecord } from "./waiting-for";

/**
 * What ANSWER, APPROVE/DENY and DELIVER_TO_NODE check and record, shared by the control plane of one
 * process (GraphControlService) and a cluster's (ClusterGraphControl), so both answer and refuse alike.
 * `busy`: a run of the instance is still going (here, or anywhere for a cluster).
 */

/** Source name of delivers that come from outside the graph (REST, CLI, UI). */
export const EXTERNAL_SOURCE = "__external__";

/** The answer to the human input a paused instance waits on, or INVALID_STATE. */
export function answerOf(instance: GraphInstanceRecord, value: unknown, by: Author | string, busy: boolean): AnswerRecord {
  const waiting = waitingFor(instance);
  if (!waiting || busy) throw invalidState(instance.instanceId, instance.status, "it is not waiting for human input");
  if (isAgentApprovalRequest(waiting)) {
    throw invalidState(instance.instanceId, instance.status, `agent ${waiting.node} waits for approval of ${waiting.tool}: approve or deny it`);
  }
  return { node: String(waiting.node ?? ""), value, ...asAuthor(by), at: Date.now(), version: instance.version };
}

export interface DecisionArgs {
  approved: boolean;
  reason?: string;
  by?: Author | string;
  transactionId?: string;
}

/** The decision on the tool call an agent waits on (the record kept, the value the run resumes with), or INVALID_STATE. */
export function decisionOf(instance: GraphInstanceRecord, args: DecisionArgs, busy: boolean): { record: ApprovalRecord; decision: { transactionId: string; approved: boolean; reason?: string } } {
  const { instanceId, status } = instance;
  const waiting = waitingFor(instance);
  if (!isAgentApprovalRequest(waiting) || busy) throw invalidState(instanceId, status, "no agent waits for an approval");
  if (args.transactionId && args.transactionId !== waiting.transactionId) {
    throw invalidState(instanceId, status, `approval ${args.transactionId} is not the one waiting (${waiting.transactionId})`);
  }
  const reason = args.reason?.trim() || undefined;
  const record: ApprovalRecord = {
    node: waiting.node,
    transactionId: waiting.transactionId,
    tool: waiting.tool,
    args: waiting.args,
    approved: args.approved,
    ...(reason ? { reason } : {}),
    ...asAuthor(args.by),
    at: Date.now(),
    version: instance.version,
  };
  return { record, decision: { transactionId: waiting.transactionId, approved: args.approved, ...(reason ? { reason } : {}) } };
}

/** The PENDING row of an external deliver to `node`, or BAD_REQUEST naming the nodes there are. */
export function externalDeliver(instance: GraphInstanceRecord, node: string, content: unknown): NewDeliverRow {
  const targetNodeId = instance.nodeIdMap[node];
  if (!targetNodeId || node === START || node.includes("/")) {
    const known = Object.keys(instance.nodeIdMap).filter((n) => n !== START && !n.includes("/"));
    throw new ServiceError("BAD_REQUEST", `unknown node "${node}"; nodes: ${known.join(", ")}`);
  }
  return {
    deliverId: newSnowflake(),
    instanceId: instance.instanceId,
    sourceNode: EXTERNAL_SOURCE,
    sourceNodeId: EXTERNAL_SOURCE,
    sourceInvocationId: null,
    targetNode: node,
    targetNodeId,
    content,
    createdAt: Date.now(),
  };
}
