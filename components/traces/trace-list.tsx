"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import type { TurnTrace as Turn } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { duration } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";
import { Skeleton } from "@/components/ui/skeleton";
import { TabBar, type TabItem } from "@/components/ui/tab-bar";
import { useDocumentTitle } from "@/components/ui/use-document-title";
import { useUrlFlag } from "@/components/ui/use-url-flag";

type Source = "all" | "chat" | "node";

const SOURCES: readonly TabItem<Source>[] = [
  { value: "all", label: "All turns" },
  { value: "chat", label: "Chats" },
  { value: "node", label: "Graph runs" },
];

/** Where a turn's trace opens (the trace view's two sources). */
export function traceHref(t: Turn): string {
  const turn = encodeURIComponent(t.turnId);
  return t.source.kind === "chat"
    ? `/traces?session=${encodeURIComponent(t.source.sessionId)}&turn=${turn}`
    : `/traces?instance=${encodeURIComponent(t.source.instanceId)}&node=${encodeURIComponent(t.source.node)}&turn=${turn}`;
}

interface Filter {
  source: Source;
  errorsOnly: boolean;
  /** Only turns in the training data (the training_data hook's tag, or a person's choice). */
  trainingOnly: boolean;
}

/** The filter an address names (an unknown source is all of them). */
function readFilter(params: Pick<URLSearchParams, "get">): Filter {
  const source = params.get("source");
  return { source: source === "chat" || source === "node" ? source : "all", errorsOnly: params.get("errors") === "1", trainingOnly: params.get("training") === "1" };
}

/** The list's address for a filter. */
function filterUrl({ source, errorsOnly, trainingOnly }: Filter): string {
  const q = new URLSearchParams({ ...(source !== "all" && { source }), ...(errorsOnly && { errors: "1" }), ...(trainingOnly && { training: "1" }) }).toString();
  return q ? `/traces?${q}` : "/traces";
}

/** The training-data export of the turns the source filter shows (the export holds training turns only). */
function exportUrl(source: Source): string {
  return source === "all" ? "/api/traces/training.jsonl" : `/api/traces/training.jsonl?source=${source}`;
}

/**
 * The Traces page without a turn chosen: every finished agent turn, chats and graph runs, newest first,
 * a page at a time; a row opens the turn's trace. Filters live in the URL (`?source=`, `?errors=1`).
 */
export function TraceList() {
  const client = useModexClient();
  // The filters live in the URL alone (a reload, a shared link or the navigation's Traces sets them). The
  // browser's own replaceState changes it at once, without a round trip to the server, and Next's router
  // follows; each change builds on the address as it is now, so quick clicks or keys each build on the last.
  const { source, errorsOnly, trainingOnly } = readFilter(useSearchParams());
  const [errorsShown, showErrors] = useUrlFlag(errorsOnly);
  const [trainingShown, showTraining] = useUrlFlag(trainingOnly);
  const setFilter = (change: Partial<Filter>) => {
    const next = { ...readFilter(new URLSearchParams(window.location.search)), ...change };
    window.history.replaceState(null, "", filterUrl(next));
  };
  const pages = useInfiniteQuery({
    queryKey: ["traces", "recent", source, errorsOnly, trainingOnly],
    queryFn: ({ pageParam }) => client.traces.recent.query({ source, errorsOnly, trainingOnly, cursor: pageParam, limit: 50 }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const turns = pages.data?.pages.flatMap((p) => p.turns) ?? [];
  const filtered = source !== "all" || errorsOnly || trainingOnly;
  // The tab names the filter shown: "Graph runs, failed only · Traces" (unfiltered, the route's "Traces").
  const shown = [source !== "all" && SOURCES.find((s) => s.value === source)?.label, errorsOnly && "failed only", trainingOnly && "training data"].filter(Boolean).join(", ");
  useDocumentTitle(filtered ? `${shown.charAt(0).toUpperCase()}${shown.slice(1)} · Traces` : null);

  return (
    <main data-testid="trace-list" className="mx-auto max-w-6xl px-6 py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-white">Traces</h1>
      <p className="mt-1 text-sm text-zinc-400">Every finished agent turn, in chats and in graph runs. Open one to see its model calls and tools as a waterfall.</p>

      <div className="mt-6 flex flex-wrap items-center gap-1 text-xs">
        <TabBar label="Filter by source" tabs={SOURCES} value={source} onChange={(value) => setFilter({ source: value })} />
        <label className="ml-3 flex items-center gap-1.5 text-zinc-400">
          <input
            type="checkbox"
            checked={errorsShown}
            onChange={(e) => {
              showErrors(e.target.checked);
              setFilter({ errorsOnly: e.target.checked });
            }}
          />
          Failed only
        </label>
        <label className="ml-3 flex items-center gap-1.5 text-zinc-400" title="Turns in the training data: tagged by the training_data hook (completed normally), or included on their trace page">
          <input
            type="checkbox"
            checked={trainingShown}
            onChange={(e) => {
              showTraining(e.target.checked);
              setFilter({ trainingOnly: e.target.checked });
            }}
          />
          Training data
        </label>
        <a
          data-testid="training-export"
          href={exportUrl(source)}
          download="training.jsonl"
          title="Download the training-data turns of this source as JSONL (OpenAI chat fine-tuning format)"
          className="ml-auto rounded-lg border border-white/15 px-3 py-1 text-xs text-zinc-200 hover:bg-white/5"
        >
          Export JSONL
        </a>
      </div>

      <div className="mt-4">
        {pages.isPending ? (
          <div className="space-y-2">{[1, 2, 3, 4].map((i) => <Skeleton key={i} className="h-12" />)}</div>
        ) : pages.isError ? (
          <ErrorState title="Could not load the traces" error={pages.error} onRetry={() => void pages.refetch()} />
        ) : turns.length === 0 ? (
          <EmptyState
            title={filtered ? "No turns match these filters" : "No agent turns yet"}
            action={
              filtered ? (
                <Link href="/traces" className="rounded-lg border border-white/15 px-3.5 py-1.5 text-sm text-zinc-200 hover:bg-white/5">
                  Clear filters
                </Link>
              ) : (
                <Link href="/chat" className="rounded-lg bg-indigo-500 px-3.5 py-1.5 text-sm font-semibold text-on-accent hover:bg-indigo-400">
                  Open the chat
                </Link>
              )
            }
          >
            {filtered ? "Other turns are under All turns." : "A turn is listed here once it ends: send a message in the chat, or run a graph with an agent node."}
          </EmptyState>
        ) : (
          <TurnTable turns={turns} />
        )}
        {pages.hasNextPage && (
          <div className="mt-3 flex justify-center">
            <Button onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
              {pages.isFetchingNextPage ? "Loading…" : "Load older turns"}
            </Button>
          </div>
        )}
      </div>
    </main>
  );
}

function TurnTable({ turns }: { turns: Turn[] }) {
  const router = useRouter();
  return (
    <TableFrame>
      <TableHead>
        <Th tight>Where</Th>
        <Th tight>Agent</Th>
        <Th tight>Ended</Th>
        <Th tight right>Tokens</Th>
        <Th tight right>Duration</Th>
        <Th tight>Started</Th>
      </TableHead>
      <tbody className="divide-y divide-white/5">
        {turns.map((t) => (
          <tr key={`${t.turnId}:${t.startedAt}`} data-testid="trace-row" data-source={t.source.kind} className="group cursor-pointer hover:bg-white/[0.03]" onClick={() => router.push(traceHref(t))}>
            <td className="px-3 py-3">
              <Link href={traceHref(t)} className="font-medium text-zinc-100 group-hover:text-indigo-300" onClick={(e) => e.stopPropagation()}>
                <Where t={t} />
              </Link>
            </td>
            <td className="whitespace-nowrap px-3 py-3 text-zinc-300">
              {t.agent}
              {t.training && (
                <span data-testid="trace-training-badge" title={t.trainingChosen ? "In the training data (your choice)" : "In the training data (tagged by the training_data hook)"} className="ml-1.5 rounded border border-emerald-400/30 px-1.5 py-0.5 text-[10px] uppercase text-emerald-300">
                  training
                </span>
              )}
            </td>
            <td className="px-3 py-3">
              <Outcome t={t} />
            </td>
            <td className="whitespace-nowrap px-3 py-3 text-right tabular-nums text-zinc-300">{(t.inputTokens + t.outputTokens).toLocaleString("en")}</td>
            <td className="whitespace-nowrap px-3 py-3 text-right tabular-nums text-zinc-300">{duration(t.durationMs)}</td>
            <td className="whitespace-nowrap px-3 py-3 text-zinc-400">
              <LocalTime at={t.startedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </TableFrame>
  );
}

function Where({ t }: { t: Turn }) {
  if (t.source.kind === "chat") {
    return (
      <span>
        <span className="mr-1.5 rounded border border-white/15 px-1.5 py-0.5 text-[10px] font-normal uppercase text-zinc-400">chat</span>
        {t.source.title ?? <span className="italic text-zinc-500">deleted chat</span>}
      </span>
    );
  }
  return (
    <span>
      <span className="mr-1.5 rounded border border-white/15 px-1.5 py-0.5 text-[10px] font-normal uppercase text-zinc-400">run</span>
      {t.source.graph ?? <span className="italic text-zinc-500">deleted run</span>} · {t.source.node}
      <span className="ml-1.5 font-mono text-xs text-zinc-500">{t.source.instanceId}</span>
    </span>
  );
}

function Outcome({ t }: { t: Turn }) {
  const failed = t.status === "error";
  const label = t.stopReason ?? (failed ? "failed" : "ended");
  return (
    <span data-testid="trace-outcome" title={t.error ?? undefined} className={failed ? "text-rose-400" : label === "completed" ? "text-emerald-400" : "text-amber-300"}>
      {label}
      {failed && t.error && <span className="ml-1.5 text-xs text-zinc-500">{t.error.length > 60 ? `${t.error.slice(0, 60)}…` : t.error}</span>}
    </span>
  );
}
