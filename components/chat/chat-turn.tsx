import { type ApprovalActions, ChatApprovalCard } from "@/components/chat/chat-approval-card";
import type { ChatTurn, ToolUse, TurnPart } from "@/components/chat/chat-transcript";
import { ChatSummaryDivider } from "@/components/chat/chat-summary-divider";
import { formatCost } from "@/components/ui/format-cost";
import { ESTIMATED_TOKENS_TITLE } from "@/components/ui/estimated-tokens";

type PartGroup = { kind: "text"; text: string } | { kind: "tools"; callIds: string[] };

/** Consecutive tool calls in one row of chips; text between them on its own. */
function groupParts(parts: readonly TurnPart[]): PartGroup[] {
  const groups: PartGroup[] = [];
  for (const p of parts) {
    const last = groups[groups.length - 1];
    if (p.kind === "text") groups.push({ kind: "text", text: p.text });
    else if (last?.kind === "tools") last.callIds.push(p.callId);
    else groups.push({ kind: "tools", callIds: [p.callId] });
  }
  return groups;
}

function ToolChip({ use }: { use: ToolUse }) {
  const look = use.result === null ? "border-white/15 text-zinc-400" : use.result.isError ? "border-rose-500/40 text-rose-200" : "border-emerald-400/30 text-emerald-200";
  return (
    <details data-testid="chat-tool" className={`group rounded-md border px-2 py-1 text-xs ${look}`}>
      <summary className="cursor-pointer list-none font-mono">
        {use.result === null ? "⋯" : use.result.isError ? "✕" : "✓"} {use.name}
      </summary>
      <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-words text-[11px] text-zinc-400">{use.arguments}</pre>
      {use.result && <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-words border-t border-white/10 pt-1 text-[11px] text-zinc-300">{use.result.content}</pre>}
    </details>
  );
}

/**
 * One exchange: the person's message, then what the agent did in order — text it streamed, its tool
 * calls (as chips; calls that needed approval as cards) — ending with its answer and end state.
 */
export function ChatTurnView({ turn, approvals, traceHref }: { turn: ChatTurn; approvals: ApprovalActions; traceHref?: string }) {
  if (turn.system) return <NoticeList turn={turn} />;
  const tools = new Map(turn.tools.map((t) => [t.callId, t]));
  // The answer (the last text part) is drawn last, with the cursor; the rest in the order it came.
  const before = turn.parts[turn.parts.length - 1]?.kind === "text" ? turn.parts.slice(0, -1) : turn.parts;
  const groups = groupParts(before);
  return (
    <li data-testid="chat-turn" data-state={turn.state} className="space-y-3">
      {turn.summaries.map((mark, i) => (
        <ChatSummaryDivider key={i} mark={mark} />
      ))}
      <div className="flex justify-end">
        <p data-testid="chat-user" className="max-w-[75%] whitespace-pre-wrap rounded-2xl rounded-br-md bg-indigo-500/90 px-4 py-2 text-sm text-on-accent">
          {turn.user}
        </p>
      </div>
      <div className="flex gap-3">
        <span className="mt-1 flex h-6 w-6 shrink-0 items-center justify-center rounded-full bg-zinc-800 text-[11px] font-semibold text-zinc-300" aria-hidden="true">
          AI
        </span>
        <div className="min-w-0 max-w-[80%] space-y-2">
          {turn.reasoning && (
            <details className="text-xs text-zinc-500">
              <summary className="cursor-pointer">Reasoning</summary>
              <p className="mt-1 whitespace-pre-wrap">{turn.reasoning}</p>
            </details>
          )}
          {groups.map((g, i) =>
            g.kind === "text" ? (
              g.text.trim() && (
                <p key={i} data-testid="chat-text" className="whitespace-pre-wrap text-sm leading-6 text-zinc-300">
                  {g.text}
                </p>
              )
            ) : (
              <div key={i} className="space-y-2">
                {g.callIds.some((id) => tools.get(id)?.approval === null) && (
                  <div className="flex flex-wrap gap-1.5">
                    {g.callIds.map((id) => {
                      const use = tools.get(id);
                      return use && use.approval === null ? <ToolChip key={id} use={use} /> : null;
                    })}
                  </div>
                )}
                {g.callIds.map((id) => {
                  const use = tools.get(id);
                  return use && use.approval !== null ? <ChatApprovalCard key={id} use={use} actions={approvals} /> : null;
                })}
              </div>
            ),
          )}
          <p data-testid="chat-answer" className="whitespace-pre-wrap text-sm leading-6 text-zinc-100">
            {turn.text}
            {turn.state === "running" && <span className="ml-0.5 inline-block h-4 w-1.5 translate-y-0.5 animate-pulse bg-indigo-300" aria-label="Answering" />}
          </p>
          {turn.note && (
            <p data-testid="chat-note" className={`text-xs ${turn.state === "stopped" ? "text-amber-300" : "text-rose-300"}`}>
              {turn.state === "stopped" ? (turn.note === "interrupted" ? "Interrupted by your next message (what streamed is kept)." : "Stopped.") : `Failed: ${turn.note}`}
            </p>
          )}
          <Notices notices={turn.notices} />
          {(turn.usage || traceHref) && turn.state !== "running" && turn.state !== "waiting" && (
            <p data-testid="chat-turn-footer" className="flex gap-3 text-[11px] text-zinc-500">
              {turn.usage && <TurnUsage usage={turn.usage} />}
              {turn.usage?.cost !== undefined && (
                <span data-testid="chat-cost" className="text-emerald-300/80">
                  {turn.usage.estimated && "~"}
                  {formatCost(turn.usage.cost, turn.usage.currency ?? null)}
                </span>
              )}
              {traceHref && (
                <a href={traceHref} data-testid="chat-trace-link" className="text-indigo-300 hover:underline">
                  Trace
                </a>
              )}
            </p>
          )}
        </div>
      </div>
    </li>
  );
}

/** The turn's tokens; an estimate (a stopped stream's provider reported none) reads "~N tokens (estimated …)". */
function TurnUsage({ usage }: { usage: NonNullable<ChatTurn["usage"]> }) {
  const n = (v: number) => v.toLocaleString("en");
  if (!usage.estimated) {
    return (
      <span data-testid="chat-usage" title={`${usage.input} input + ${usage.output} output tokens`}>
        {n(usage.total)} tokens ({n(usage.input)} in · {n(usage.output)} out)
      </span>
    );
  }
  return (
    <span
      data-testid="chat-usage"
      data-estimated="true"
      className="text-amber-300/80"
      title={ESTIMATED_TOKENS_TITLE}
    >
      ~{n(usage.total)} tokens (estimated: ~{n(usage.input)} in · ~{n(usage.output)} out)
    </span>
  );
}

/** What the input pipeline said in a turn: busy-input handling and command answers. */
function Notices({ notices }: { notices: ChatTurn["notices"] }) {
  if (notices.length === 0) return null;
  return (
    <ul className="space-y-1" aria-label="Notices">
      {notices.map((n, i) => (
        <li key={i} data-testid="chat-notice" data-kind={n.kind} className={`whitespace-pre-wrap font-mono text-[11px] ${n.isError ? "text-rose-300" : "text-zinc-400"}`}>
          {n.text}
        </li>
      ))}
    </ul>
  );
}

/** A command answered outside any turn. */
function NoticeList({ turn }: { turn: ChatTurn }) {
  return (
    <li data-testid="chat-system" className="mx-auto max-w-2xl rounded-lg border border-white/10 bg-zinc-900/60 px-3 py-2">
      <Notices notices={turn.notices} />
    </li>
  );
}
