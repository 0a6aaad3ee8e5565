"use client";

import Link from "next/link";
import { useState } from "react";
import { prettyArguments, startedInstanceOf, type ToolUse } from "@/components/chat/chat-transcript";
import { Button } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";

export interface ApprovalActions {
  decide(args: { transactionId: string; approved: boolean; reason?: string }): void;
  /** The transaction a decision is being sent for, if any. */
  pending: string | null;
  error: { transactionId: string; message: string } | null;
}

const LOOK = {
  pending: "border-amber-400/40 bg-amber-400/[0.04]",
  approved: "border-emerald-400/30 bg-emerald-400/[0.03]",
  denied: "border-rose-500/40 bg-rose-500/[0.04]",
} as const;

/**
 * A tool call the agent may only make with the person's approval: what it is and its arguments, then
 * Approve / Deny (a denial may say why: the agent reads it). Once decided it says so, who decided and
 * when, and shows what the call gave back (for `run_graph`, a link to the instance it started).
 */
export function ChatApprovalCard({ use, actions }: { use: ToolUse; actions: ApprovalActions }) {
  const approval = use.approval!;
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const sending = actions.pending === approval.transactionId;
  const error = actions.error?.transactionId === approval.transactionId ? actions.error.message : null;
  const decide = (approved: boolean) =>
    actions.decide({ transactionId: approval.transactionId, approved, ...(!approved && reason.trim() ? { reason: reason.trim() } : {}) });
  const instanceId = startedInstanceOf(use);

  return (
    <section
      data-testid="chat-approval"
      data-state={approval.state}
      aria-label={`Approval for ${use.name}`}
      className={`w-[36rem] max-w-full rounded-xl border p-3 text-sm ${LOOK[approval.state]}`}
    >
      <header className="flex items-center gap-2">
        <StateBadge state={approval.state} />
        <span className="font-mono text-[13px] text-zinc-100">{use.name}</span>
      </header>
      {approval.state === "pending" && (
        <p className="mt-1.5 text-xs leading-5 text-zinc-400">The agent wants to make this call. It has side effects, so it waits for you.</p>
      )}
      <pre
        data-testid="chat-approval-arguments"
        className="mt-2 max-h-48 overflow-auto whitespace-pre-wrap break-words rounded-lg bg-zinc-950/70 px-3 py-2 font-mono text-[12px] leading-5 text-zinc-300"
      >
        {prettyArguments(use.arguments)}
      </pre>

      {approval.state === "pending" ? (
        <div className="mt-3 space-y-2">
          {denying && (
            <textarea
              aria-label="Reason for denying (optional)"
              rows={2}
              autoFocus
              value={reason}
              maxLength={2_000}
              onChange={(e) => setReason(e.target.value)}
              placeholder="Why not? (optional; the agent reads it)"
              className="block w-full resize-none rounded-lg border border-white/15 bg-zinc-900 px-2.5 py-1.5 text-sm text-zinc-100 outline-none placeholder:text-zinc-500 focus:border-rose-400/60"
            />
          )}
          <div className="flex items-center gap-2">
            {denying ? (
              <>
                <Button variant="danger" size="sm" disabled={sending} onClick={() => decide(false)}>
                  {sending ? "Denying…" : "Deny"}
                </Button>
                <Button variant="ghost" size="sm" disabled={sending} onClick={() => setDenying(false)}>
                  Back
                </Button>
              </>
            ) : (
              <>
                <Button variant="primary" size="sm" disabled={sending} onClick={() => decide(true)}>
                  {sending ? "Approving…" : "Approve"}
                </Button>
                <Button variant="danger" size="sm" disabled={sending} onClick={() => setDenying(true)}>
                  Deny…
                </Button>
              </>
            )}
          </div>
          {error && (
            <p role="alert" className="text-xs text-rose-300">
              {error}
            </p>
          )}
        </div>
      ) : (
        <div className="mt-2 space-y-2">
          <p data-testid="chat-approval-decision" className="text-xs text-zinc-400">
            {approval.state === "approved" ? "Approved" : "Denied"} by {approval.by ?? "someone"}
            {approval.decidedAt !== null && <> at <LocalTime at={approval.decidedAt} /></>}
            {approval.reason && <span className="text-zinc-300"> — “{approval.reason}”</span>}
          </p>
          {instanceId ? (
            <p data-testid="chat-approval-result" className="text-xs text-zinc-300">
              Started instance <span className="font-mono">{instanceId}</span> ·{" "}
              <Link href={`/instances/${instanceId}`} className="font-semibold text-indigo-300 underline-offset-2 hover:underline">
                Open instance →
              </Link>
            </p>
          ) : (
            use.result &&
            approval.state === "approved" && (
              <pre
                data-testid="chat-approval-result"
                className={`max-h-40 overflow-auto whitespace-pre-wrap break-words border-t border-white/10 pt-2 text-[11px] ${use.result.isError ? "text-rose-200" : "text-zinc-300"}`}
              >
                {use.result.content}
              </pre>
            )
          )}
        </div>
      )}
    </section>
  );
}

function StateBadge({ state }: { state: "pending" | "approved" | "denied" }) {
  const [text, look] =
    state === "pending"
      ? ["Approval needed", "bg-amber-400/15 text-amber-200"]
      : state === "approved"
        ? ["✓ Approved", "bg-emerald-400/15 text-emerald-200"]
        : ["✕ Denied", "bg-rose-500/15 text-rose-200"];
  return <span className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ${look}`}>{text}</span>;
}
