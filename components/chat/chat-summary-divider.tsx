import type { ContextSummaryMark } from "@/components/chat/chat-transcript";

const tokens = (n: number) => `~${n.toLocaleString("en")}`;

/**
 * Where a memory cleanup summarized earlier messages for the model: a thin divider across the transcript
 * (every message stays shown above it); opening it shows the summary the model now reads instead.
 */
export function ChatSummaryDivider({ mark }: { mark: ContextSummaryMark }) {
  return (
    <details data-testid="chat-summary-divider" data-mode={mark.mode} className="group">
      <summary className="flex cursor-pointer list-none items-center gap-3 text-[11px] text-zinc-500 hover:text-zinc-300">
        <span className="h-px flex-1 bg-white/10" aria-hidden="true" />
        <span data-testid="chat-summary-label">
          Earlier messages summarized — {mark.messages.toLocaleString("en")} messages, {tokens(mark.tokensBefore)} tokens
        </span>
        <span className="text-zinc-600 group-open:rotate-90" aria-hidden="true">
          ›
        </span>
        <span className="h-px flex-1 bg-white/10" aria-hidden="true" />
      </summary>
      <div className="mx-auto mt-2 max-w-2xl rounded-lg border border-white/10 bg-zinc-900/60 px-3 py-2">
        <p className="mb-1 text-[11px] text-zinc-500">
          {mark.mode === "consolidated"
            ? `The model reads this summary instead of the first ${mark.messages} messages (context ${tokens(mark.tokensBefore)} → ${tokens(mark.tokensAfter)} tokens).`
            : `The first ${mark.messages} messages were dropped from the model's context without a summary (context ${tokens(mark.tokensBefore)} → ${tokens(mark.tokensAfter)} tokens).`}
        </p>
        <p data-testid="chat-summary-text" className="whitespace-pre-wrap text-xs leading-5 text-zinc-300">
          {mark.summary}
        </p>
      </div>
    </details>
  );
}
