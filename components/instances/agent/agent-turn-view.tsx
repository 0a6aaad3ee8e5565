"use client";

import { useMemo } from "react";
import type { ActivityRow, LiveText } from "@/components/instances/agent/use-agent-activity";
import type { AgentActivity } from "@/server/agent/graph-node/agent-activity";
import { TurnTraceLink } from "@/components/instances/agent/turn-trace-link";
import { ESTIMATED_TOKENS_TITLE } from "@/components/ui/estimated-tokens";

function pretty(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** Where the turn stands: the latest attempt and iteration seen, and the tokens used so far. */
function progressOf(rows: readonly ActivityRow[]) {
  let attempt = 0;
  let iteration = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  let estimated = false;
  for (const { activity: a } of rows) {
    if ("attempt" in a) attempt = Math.max(attempt, a.attempt);
    if ("iteration" in a) iteration = a.iteration;
    if (a.kind === "usage") {
      tokensIn += a.usage.inputTokens;
      tokensOut += a.usage.outputTokens;
      estimated ||= a.usage.estimated === true;
    }
  }
  return { attempt, iteration, tokensIn, tokensOut, estimated };
}

function Item({ a }: { a: AgentActivity }) {
  switch (a.kind) {
    case "turn_started":
      return (
        <details className="text-[11px] text-zinc-400">
          <summary className="cursor-pointer">{a.resumed ? "turn re-run after a pause" : "turn started"} · input</summary>
          <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap rounded bg-white/5 p-2 text-zinc-300">{a.input}</pre>
        </details>
      );
    case "turn_resumed":
      return (
        <p className="text-[11px] text-amber-200" data-testid="agent-resumed">
          {a.summary}
        </p>
      );
    case "message":
      return <p className="whitespace-pre-wrap text-xs text-zinc-100" data-testid="agent-message">{a.text || a.reasoning}</p>;
    case "tool_call":
      return (
        <div className="rounded border border-sky-400/20 bg-sky-400/[0.05] p-1.5 text-[11px]" data-testid="agent-tool-call">
          <span className="font-mono font-semibold text-sky-200">{a.tool}</span>
          <pre className="mt-1 max-h-32 overflow-auto whitespace-pre-wrap text-zinc-300">{pretty(a.args)}</pre>
        </div>
      );
    case "tool_result":
      return (
        <div className={`rounded border p-1.5 text-[11px] ${a.isError ? "border-rose-400/30 bg-rose-400/[0.05]" : "border-white/10 bg-white/[0.02]"}`} data-testid="agent-tool-result">
          <span className="font-mono text-zinc-400">{a.tool} →</span>
          <pre className="mt-1 max-h-32 overflow-auto whitespace-pre-wrap text-zinc-300">{a.content}</pre>
          {a.overflowPath && <p className="mt-1 text-zinc-500">full result: {a.overflowPath}</p>}
        </div>
      );
    case "usage":
      return a.usage.estimated ? (
        <p className="text-[10px] text-amber-300/80" data-testid="agent-usage-estimated" title={ESTIMATED_TOKENS_TITLE}>
          tokens: ~{a.usage.inputTokens} in · ~{a.usage.outputTokens} out (estimated)
        </p>
      ) : (
        <p className="text-[10px] text-zinc-500">tokens: {a.usage.inputTokens} in · {a.usage.outputTokens} out</p>
      );
    case "context_summarized":
      return (
        <details className="rounded border border-violet-400/20 bg-violet-400/[0.05] p-1.5 text-[11px]" data-testid="agent-context-summarized">
          <summary className="cursor-pointer text-violet-200">
            {a.mode === "consolidated" ? "context summarized" : "context pruned"}: {a.prunedMessages} older message{a.prunedMessages === 1 ? "" : "s"} · ~{a.tokensBefore} → ~{a.tokensAfter} tokens
          </summary>
          <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap text-zinc-300">{a.text}</pre>
        </details>
      );
    case "approval_requested":
      return <p className="text-[11px] text-amber-300">waits for approval of {a.tool}</p>;
    case "approval_decided":
      return <p className="text-[11px] text-amber-200">{a.approved ? "approved" : "denied"}{a.reason ? `: ${a.reason}` : ""}</p>;
    case "turn_ended":
      return (
        <p className={`text-[11px] ${a.stopReason === "completed" ? "text-emerald-300" : "text-rose-300"}`} data-testid="agent-turn-ended">
          turn ended: {a.summary}
          {a.error ? ` — ${a.error}` : ""}
        </p>
      );
  }
}

/**
 * A node's agent turns: live while it runs (streamed text, tool calls with arguments and results,
 * attempt, iteration, tokens) and afterwards the full transcript of each invocation, from the event log.
 */
export function AgentTurnView({ instanceId, node, rows, live, failure }: { instanceId: string; node: string; rows: readonly ActivityRow[]; live: LiveText; failure?: string | null }) {
  const invocations = useMemo(() => {
    const byId = new Map<string, ActivityRow[]>();
    for (const r of rows) if (r.node === node) byId.set(r.invocationId, [...(byId.get(r.invocationId) ?? []), r]);
    return [...byId.entries()];
  }, [rows, node]);
  if (invocations.length === 0) return null;
  return (
    <section aria-label={`Agent ${node}`} data-testid="agent-turn" className="border-b border-white/10 px-4 py-3">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-400">Agent turns · {node}</h2>
      {failure && <p className="mt-1 text-xs text-rose-300" data-testid="agent-failure">Failed: {failure}</p>}
      <ol className="mt-2 space-y-3">
        {invocations.map(([invocationId, items], i) => {
          // An invocation followed by another is over, even without an end (a crash cut it; the next went on).
          const running = i === invocations.length - 1 && !items.some((r) => r.activity.kind === "turn_ended" || r.activity.kind === "approval_requested");
          const streaming = live.get(invocationId);
          const logged = progressOf(items);
          // A model call still streaming is further on than the log: its attempt and iteration come live.
          const p = streaming ? { ...logged, attempt: Math.max(logged.attempt, streaming.attempt), iteration: streaming.iteration } : logged;
          const turnIds = [...new Set(items.map((r) => r.activity.turnId))];
          return (
            <li key={invocationId} data-testid="agent-invocation" data-running={running ? "true" : "false"}>
              <div className="flex items-baseline justify-between gap-2">
                <p className="text-[11px] text-zinc-500" data-testid="agent-progress">
                  Invocation {i + 1} · attempt {p.attempt} · iteration {p.iteration} · tokens {p.estimated ? `~${p.tokensIn} in / ~${p.tokensOut} out (estimated)` : `${p.tokensIn} in / ${p.tokensOut} out`}{running ? " · running" : ""}
                </p>
                {turnIds.map((turnId) => (
                  <TurnTraceLink key={turnId} instanceId={instanceId} node={node} turnId={turnId} />
                ))}
              </div>
              <div className="mt-1 space-y-1.5">
                {items.map((r) => (
                  <Item key={r.id} a={r.activity} />
                ))}
                {streaming && streaming.text && (
                  <p className="whitespace-pre-wrap text-xs text-zinc-100" data-testid="agent-streaming">
                    {streaming.text}
                    <span className="ml-0.5 inline-block h-3 w-1.5 animate-pulse bg-zinc-400 align-middle" aria-hidden="true" />
                  </p>
                )}
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
