"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { AgentApprovalCard } from "@/components/instances/agent/agent-approval-card";
import { AgentTurnView } from "@/components/instances/agent/agent-turn-view";
import { RunTurnLinks } from "@/components/instances/agent/run-turn-links";
import { turnsOfRun } from "@/components/instances/agent/turns-of-run";
import { KnowledgeTab } from "@/components/instances/agent/knowledge-tab";
import { useAgentActivity } from "@/components/instances/agent/use-agent-activity";
import { TabBar, type TabItem } from "@/components/ui/tab-bar";

type PanelTab = "agent" | "knowledge";
const PANEL_TABS: readonly TabItem<PanelTab>[] = [
  { value: "agent", label: "Agent" },
  { value: "knowledge", label: "Knowledge" },
];

/**
 * Everything the instance view shows of its agent nodes, in the sidebar: the approval card while an
 * agent waits for one, the selected node's turns (live, then per-invocation transcripts), and the
 * Knowledge tab. Self-contained: it reads the event log and the agentRuns router itself.
 */
export function AgentPanels({
  instanceId,
  status,
  selectedNode,
  nodeFailure,
  queued = false,
  onChanged,
}: {
  instanceId: string;
  status: string;
  selectedNode: string | null;
  /** The selected node's last error, if it failed. */
  nodeFailure?: string | null;
  /** A cluster: a decision was accepted and no worker has started the run yet. */
  queued?: boolean;
  onChanged(): void;
}) {
  const client = useModexClient();
  const { rows, live } = useAgentActivity(instanceId);
  const [tab, setTab] = useState<PanelTab>("agent");
  const approvalRows = rows.filter((r) => r.activity.kind === "approval_requested" || r.activity.kind === "approval_decided").length;
  const approvals = useQuery({
    queryKey: ["agentRuns", "approvals", instanceId, status, approvalRows],
    queryFn: () => client.agentRuns.approvals.query({ instanceId }),
    // The key moves as the activity rows page in: without the last answer meanwhile, the approval card
    // of a waiting run vanished for each refetch. Never another instance's answer.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[2] === instanceId ? previous : undefined),
  });
  // One Idempotency-Key per decision: pressing it again after a lost answer replays the first answer
  // instead of a 409; another decision or reason is a new key.
  const decisionKeys = useRef(new Map<string, string>());
  const decide = useMutation({
    mutationFn: async (d: { approved: boolean; reason: string }) => {
      const transactionId = approvals.data?.waiting?.transactionId;
      const decision = JSON.stringify([transactionId, d.approved, d.reason]);
      const idempotencyKey = decisionKeys.current.get(decision) ?? randomKey();
      decisionKeys.current.set(decision, idempotencyKey);
      return await client.control.decide.mutate({ instanceId, approved: d.approved, reason: d.reason || undefined, transactionId, idempotencyKey });
    },
    onSettled: () => {
      void approvals.refetch();
      onChanged();
    },
  });
  const kbChanges = useMemo(() => rows.filter((r) => r.activity.kind === "tool_result" && r.activity.tool === "knowledge_base").length, [rows]);
  const turns = useMemo(() => turnsOfRun(rows), [rows]);
  const hasAgents = rows.length > 0 || approvals.data?.waiting || (approvals.data?.decided.length ?? 0) > 0;
  if (!hasAgents) return null;
  // A queued decision: the run still waits (its attrs say so until a worker starts it), but the card
  // shows the decision made, not Approve / Deny again (the server would refuse a second one).
  const waiting = status === "paused" && !queued ? (approvals.data?.waiting ?? null) : null;
  const last = waiting ? null : (approvals.data?.decided.at(-1) ?? null);
  // The turn the card is about: the waiting request names it, a decision's is in the log.
  const cardTurn = waiting
    ? { node: waiting.node, turnId: waiting.turnId }
    : rows.find((r) => r.activity.kind === "approval_decided" && r.activity.transactionId === last?.transactionId);
  return (
    <div data-testid="agent-panels">
      <AgentApprovalCard
        waiting={waiting}
        last={last}
        trace={cardTurn ? { instanceId, node: cardTurn.node, turnId: "activity" in cardTurn ? cardTurn.activity.turnId : cardTurn.turnId } : null}
        queued={queued}
        busy={decide.isPending}
        error={decide.error ? errorMessage(decide.error) : null}
        onDecide={(approved, reason) => decide.mutate({ approved, reason })}
      />
      <TabBar label="Agents" look="underline" className="px-4 pt-2" tabs={PANEL_TABS} value={tab} onChange={setTab} />
      {tab === "knowledge" ? (
        <KnowledgeTab instanceId={instanceId} changes={kbChanges} running={status === "running"} />
      ) : selectedNode ? (
        <AgentTurnView instanceId={instanceId} node={selectedNode} rows={rows} live={live} failure={nodeFailure} />
      ) : turns.length > 0 ? (
        <RunTurnLinks instanceId={instanceId} turns={turns} />
      ) : (
        <p className="px-4 py-2 text-xs text-zinc-500">Click an agent node to watch its turns.</p>
      )}
    </div>
  );
}

/** 128 random bits as hex (crypto.randomUUID exists only on https or localhost pages). */
function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}
