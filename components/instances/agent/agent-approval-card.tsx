"use client";

import { useState } from "react";
import type { ApprovalRecord } from "@/server/services/agents/approval-records";
import type { AgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { Button } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { decidedBy } from "@/components/instances/decided-by";
import { useViewerSession } from "@/components/auth/viewer-session";
import { DecisionCardFrame } from "@/components/instances/decision-card-frame";
import { TurnTraceLink } from "@/components/instances/agent/turn-trace-link";

/** As they arrive over tRPC (JSON: an undefined `args` is left out). */
type Waiting = Omit<AgentApprovalRequest, "args" | "context"> & { args?: unknown };
type Decided = Omit<ApprovalRecord, "args"> & { args?: unknown };

/** The call's arguments as a value: a JSON string is parsed, anything else is taken as it is. */
function argsValue(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/**
 * The arguments one per line, `name` then value. A string is shown as written: in JSON a delivery's
 * content came out as one run-on line of `\n` escapes, hard to read before approving it.
 */
function ApprovalArgs({ args }: { args: unknown }) {
  const value = argsValue(args);
  const box = "mt-1 max-h-60 overflow-auto rounded bg-white/5 p-2 font-mono text-[11px] leading-4 text-zinc-200";
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0) {
    return <pre data-testid="approval-args" className={`${box} whitespace-pre-wrap break-words`}>{typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "(no arguments)")}</pre>;
  }
  return (
    <dl data-testid="approval-args" className={`${box} space-y-1.5`}>
      {Object.entries(value).map(([key, v]) => (
        <div key={key} data-testid="approval-arg" data-arg={key}>
          <dt className="text-zinc-500">{key}</dt>
          <dd className="whitespace-pre-wrap break-words pl-2">{typeof v === "string" ? v : JSON.stringify(v, null, 2)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The tool call an agent node waits to run: the tool, its arguments and what the agent said so far, with
 * Approve / Deny (and a reason the agent reads). Once decided, it says who decided, what and when.
 */
export function AgentApprovalCard({
  waiting,
  last,
  queued = false,
  trace = null,
  busy,
  error,
  onDecide,
}: {
  /** The turn the card is about, for its "Trace →" (what the agent did before asking, and after). */
  trace?: { instanceId: string; node: string; turnId: string } | null;
  waiting: Waiting | null;
  last: Decided | null;
  /** A cluster: the decision was accepted, no worker has started the run yet (`last` is it). */
  queued?: boolean;
  busy: boolean;
  error: string | null;
  onDecide(approved: boolean, reason: string): void;
}) {
  const [reason, setReason] = useState("");
  const viewer = useViewerSession();
  if (!waiting && !last) return null;
  if (!waiting && last) {
    return (
      <DecisionCardFrame
        label="Approval"
        testId="agent-approval-card"
        state={queued ? "queued" : "decided"}
        title={`${last.approved ? "Approved" : "Denied"}${queued ? ", waiting for a worker" : ""}`}
        queuedNote="Decision sent. No worker has started the run yet: it resumes with this decision as soon as one is free."
      >
        <p className="mt-1.5 text-xs text-zinc-300" data-testid="approval-decided">
          <span className="font-semibold">{decidedBy(last, viewer)}</span> {last.approved ? "approved" : "denied"} <span className="font-mono">{last.tool}</span> of{" "}
          <span className="font-mono">{last.node}</span> at <LocalTime at={last.at} />
          {last.reason ? ` (“${last.reason}”)` : ""}.
        </p>
        {trace && (
          <p className="mt-1 text-right">
            <TurnTraceLink {...trace} />
          </p>
        )}
      </DecisionCardFrame>
    );
  }
  const w = waiting!;
  return (
    <DecisionCardFrame label="Approval" testId="agent-approval-card" state="waiting" title={`Approval needed · ${w.node}`}>
      <p className="mt-1.5 text-sm text-zinc-100">
        <span className="font-mono" data-testid="approval-tool">{w.tool}</span> wants to run with:
      </p>
      <ApprovalArgs args={w.args} />
      {trace && (
        <p className="mt-1 text-right">
          <TurnTraceLink {...trace} />
        </p>
      )}
      {w.reasoning && (
        <div className="mt-2">
          <p className="text-[11px] uppercase tracking-wide text-zinc-500">The agent so far</p>
          <p className="mt-0.5 whitespace-pre-wrap text-xs text-zinc-300" data-testid="approval-reasoning">{w.reasoning}</p>
        </div>
      )}
      <label className="mt-2 block text-[11px] text-zinc-400">
        Reason (the agent reads it)
        <input value={reason} onChange={(e) => setReason(e.target.value)} aria-label="Reason" className="mt-1 w-full rounded border border-white/15 bg-white/5 px-2 py-1 text-xs text-zinc-100" />
      </label>
      <div className="mt-2 flex gap-2">
        <Button variant="primary" size="sm" disabled={busy} onClick={() => onDecide(true, reason)}>Approve</Button>
        <Button variant="danger" size="sm" disabled={busy} onClick={() => onDecide(false, reason)}>Deny</Button>
      </div>
      {error && <p role="alert" className="mt-1.5 text-xs text-rose-300">{error}</p>}
    </DecisionCardFrame>
  );
}
