"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { errorCode, errorMissing, useModexClient } from "@/components/api/modex-client";
import { memoryTokens, modelTokens, spanKind, waterfall, type WaterfallRow } from "@/components/traces/trace-tree";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { TrainingToggle } from "@/components/traces/training-toggle";
import { formatCost } from "@/components/ui/format-cost";
import { Skeleton } from "@/components/ui/skeleton";
import { useDocumentTitle } from "@/components/ui/use-document-title";
import { ESTIMATED_TOKENS_TITLE } from "@/components/ui/estimated-tokens";

const BAR: Record<ReturnType<typeof spanKind>, string> = {
  agent: "bg-indigo-500/70",
  iteration: "bg-zinc-500/60",
  model: "bg-sky-400/80",
  tool: "bg-emerald-400/80",
  memory: "bg-amber-400/70",
  resume: "bg-fuchsia-400",
  other: "bg-zinc-400/60",
};

const ms = (n: number) => (n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(2)} s`);

/**
 * An agent turn's trace: a waterfall of agent → iteration → model call / tool call spans; a row opens its
 * attributes. Two sources, one view: a chat turn (`?session=&turn=`, from its footer) and an agent
 * node's turn in a graph run (`?instance=&node=&turn=`, from the instance view's node detail).
 */
export function TraceView() {
  const client = useModexClient();
  const params = useSearchParams();
  const sessionId = params.get("session") ?? "";
  const instanceId = params.get("instance") ?? "";
  const node = params.get("node") ?? "";
  const turnId = params.get("turn") ?? "";
  const ofNode = instanceId !== "";
  const queryKey = ofNode ? ["agentRuns", "trace", instanceId, node, turnId] : ["chat", "trace", sessionId, turnId];
  const trace = useQuery({
    queryKey,
    queryFn: async () => {
      if (ofNode) {
        const t = await client.agentRuns.trace.query({ instanceId, node, turnId });
        return { ...t, back: `/instances/${encodeURIComponent(instanceId)}` };
      }
      const t = await client.chat.trace.query({ sessionId, turnId });
      return { ...t, back: `/chat?session=${sessionId}` };
    },
    enabled: (ofNode ? node !== "" : sessionId !== "") && turnId !== "",
    // A chat or run that does not exist will not appear on a retry: say so at once, not after 7 s of skeleton.
    retry: (n, e) => errorCode(e) !== "NOT_FOUND" && n < 2,
  });
  const rows = useMemo(() => waterfall(trace.data?.spans ?? []), [trace.data]);
  useDocumentTitle(trace.data ? `Trace · ${trace.data.title}` : null);
  const [open, setOpen] = useState<string | null>(null);
  const tokens = modelTokens(rows);
  // The turn's root span (a finished turn has one): where its training-data tag and a person's choice live.
  const root = trace.data?.spans.find((s) => s.parentSpanId === undefined);

  return (
    <main data-testid="trace-view" className="mx-auto max-w-6xl px-6 py-10">
      <Link href="/traces" className="text-xs text-zinc-400 hover:text-zinc-100">
        ← All traces
      </Link>
      <div className="mb-4 mt-1 flex items-baseline gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-white">Trace</h1>
        {trace.data && (
          <Link data-testid="trace-back" href={trace.data.back} className="text-sm text-indigo-300 hover:underline">
            {trace.data.title}
          </Link>
        )}
        {rows.length > 0 && (
          <span data-testid="trace-summary" className="text-xs text-zinc-400">
            {rows.length} spans · {ms(rows[0].durationMs)} ·{" "}
            {tokens.estimated ? (
              <span data-testid="trace-summary-tokens" className="text-amber-300/80" title={ESTIMATED_TOKENS_TITLE}>
                ~{tokens.total.toLocaleString("en")} tokens (estimated)
              </span>
            ) : (
              <span data-testid="trace-summary-tokens">{tokens.total.toLocaleString("en")} tokens</span>
            )}
            {trace.data && formatCost(trace.data.cost, trace.data.currency) && ` · ${tokens.estimated ? "~" : ""}${formatCost(trace.data.cost, trace.data.currency)}`}
          </span>
        )}
      </div>
      {!(ofNode ? node : sessionId) || !turnId ? (
        <EmptyState
          title="This link names no chat or run"
          action={
            <Link href="/traces" className="text-sm font-semibold text-indigo-300 hover:text-indigo-200">
              All traces →
            </Link>
          }
        >
          A turn&apos;s trace is at /traces?session=&amp;turn= (a chat) or ?instance=&amp;node=&amp;turn= (an agent node of a run); every turn is listed under All traces.
        </EmptyState>
      ) : trace.isPending ? (
        <Skeleton className="h-40" />
      ) : trace.isError && ofNode && ["node", "turn"].includes(errorMissing(trace.error) ?? "") ? (
        <EmptyState
          title={errorMissing(trace.error) === "node" ? `Node ${node} of run ${instanceId} ran no agent turn` : `Run ${instanceId} has no turn ${turnId} at node ${node}`}
          action={
            <span className="flex gap-4">
              <Link href={`/instances/${encodeURIComponent(instanceId)}`} className="text-sm font-semibold text-indigo-300 hover:text-indigo-200">
                Open run {instanceId} →
              </Link>
              <Link href="/traces" className="text-sm font-semibold text-indigo-300 hover:text-indigo-200">
                All traces →
              </Link>
            </span>
          }
        >
          The run exists, but the link names a turn it did not run there: it may be stale or cut short when copied. The run&apos;s agent nodes list their turns, each with its trace.
        </EmptyState>
      ) : trace.isError && errorCode(trace.error) === "NOT_FOUND" ? (
        <EmptyState
          title={ofNode ? `There is no run ${instanceId}` : `There is no chat ${sessionId}`}
          action={
            <Link href="/traces" className="text-sm font-semibold text-indigo-300 hover:text-indigo-200">
              All traces →
            </Link>
          }
        >
          It may have been deleted with its traces, or the link was cut short when copied.
        </EmptyState>
      ) : trace.isError ? (
        <ErrorState title="Could not load the trace" error={trace.error} onRetry={() => void trace.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="No spans for this turn">Spans are written as the turn runs, at the agent&apos;s tier (minimal: the turn; standard: model calls, tools, approvals and resumes too; full: iterations, prompts and responses).</EmptyState>
      ) : (
        <>
          {root && <TrainingToggle root={root} queryKey={queryKey} />}
          <ol aria-label="Spans" className="divide-y divide-white/5 rounded-lg border border-white/10">
            {rows.map((row) => (
              <SpanRow key={row.span.spanId} row={row} open={open === row.span.spanId} onToggle={() => setOpen(open === row.span.spanId ? null : row.span.spanId)} />
            ))}
          </ol>
        </>
      )}
    </main>
  );
}

function SpanRow({ row, open, onToggle }: { row: WaterfallRow; open: boolean; onToggle(): void }) {
  const { span } = row;
  const failed = span.status.code === "error";
  // Cut short by a stopped turn: the server leaves its status unset and says why (not a failure).
  const stopped = !failed && span.status.message !== undefined;
  const memory = memoryTokens(span.attributes);
  return (
    <li data-testid="trace-span" data-kind={spanKind(span.name)}>
      <button type="button" onClick={onToggle} aria-expanded={open} className="grid w-full grid-cols-[22rem_1fr_11rem] items-center gap-3 px-3 py-1.5 text-left hover:bg-white/5">
        <span className="truncate font-mono text-xs text-zinc-200" style={{ paddingLeft: `${row.depth * 14}px` }}>
          {span.name}
          {failed && <span className="ml-2 text-rose-300">error</span>}
          {stopped && (
            <span data-testid="trace-span-stopped" className="ml-2 text-amber-300">
              stopped
            </span>
          )}
        </span>
        <span className="relative h-3 rounded bg-white/5">
          <span className={`absolute top-0 h-3 rounded ${failed ? "bg-rose-500/80" : BAR[spanKind(span.name)]}`} style={{ left: `${row.offset * 100}%`, width: `${row.width * 100}%` }} />
        </span>
        <span className="text-right font-mono text-[11px] text-zinc-400">
          {ms(row.durationMs)}
          {row.tokens && !row.tokens.estimated && <span data-testid="trace-tokens"> · {(row.tokens.input + row.tokens.output).toLocaleString("en")} tokens</span>}
          {row.tokens?.estimated && (
            // On a line of its own under the duration: "~N tokens (estimated)" is read whole.
            <span data-testid="trace-tokens" data-estimated="true" className="block whitespace-nowrap text-amber-300/80" title={ESTIMATED_TOKENS_TITLE}>
              ~{(row.tokens.input + row.tokens.output).toLocaleString("en")} tokens (estimated)
            </span>
          )}
          {memory && (
            <span data-testid="trace-memory-tokens" title="Estimated context tokens before and after the cleanup">
              {" "}
              · ~{memory.before.toLocaleString("en")} → ~{memory.after.toLocaleString("en")} tokens
            </span>
          )}
        </span>
      </button>
      {open && (
        <dl className="grid grid-cols-[16rem_1fr] gap-x-3 gap-y-1 bg-zinc-900/60 px-4 py-2 text-xs">
          {span.status.message && (
            <>
              <dt className={failed ? "text-rose-300" : "text-amber-300"}>{failed ? "error" : "stopped"}</dt>
              <dd className={`whitespace-pre-wrap ${failed ? "text-rose-200" : "text-zinc-300"}`}>{span.status.message}</dd>
            </>
          )}
          {Object.entries(span.attributes).map(([key, value]) => (
            <div key={key} className="contents">
              <dt className="font-mono text-zinc-500">{key}</dt>
              <dd className="max-h-48 overflow-auto whitespace-pre-wrap break-all font-mono text-zinc-300">{typeof value === "string" ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </li>
  );
}
