import { type ApprovalActions, ChatApprovalCard } from "@/components/chat/chat-approval-card";
import type { ChatTurn, ToolUse } from "@/components/chat/chat-transcript";

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
 * One exchange: the person's message, then the agent's streamed answer with its tool calls (as chips;
 * calls that needed approval as cards) and end state.
 */
export function ChatTurnView({ turn, approvals }: { turn: ChatTurn; approvals: ApprovalActions }) {
  const chips = turn.tools.filter((t) => t.approval === null);
  const cards = turn.tools.filter((t) => t.approval !== null);
  return (
    <li data-testid="chat-turn" data-state={turn.state} className="space-y-3">
      <div className="flex justify-end">
        <p data-testid="chat-user" className="max-w-[75%] whitespace-pre-wrap rounded-2xl rounded-br-md bg-indigo-500/90 px-4 py-2 text-sm text-white">
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
          {chips.length > 0 && (
            <div className="flex flex-wrap gap-1.5">
              {chips.map((t) => (
                <ToolChip key={t.callId} use={t} />
              ))}
            </div>
          )}
          {cards.map((t) => (
            <ChatApprovalCard key={t.callId} use={t} actions={approvals} />
          ))}
          <p data-testid="chat-answer" className="whitespace-pre-wrap text-sm leading-6 text-zinc-100">
            {turn.text}
            {turn.state === "running" && <span className="ml-0.5 inline-block h-4 w-1.5 translate-y-0.5 animate-pulse bg-indigo-300" aria-label="Answering" />}
          </p>
          {turn.note && (
            <p data-testid="chat-note" className={`text-xs ${turn.state === "stopped" ? "text-amber-300" : "text-rose-300"}`}>
              {turn.state === "stopped" ? "Stopped." : `Failed: ${turn.note}`}
            </p>
          )}
        </div>
      </div>
    </li>
  );
}
