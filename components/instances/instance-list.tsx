"use client";

import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import type { InstanceStatus } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import { BulkBar } from "@/components/instances/bulk-bar";
import { InstanceActions } from "@/components/instances/instance-actions";
import { useInstanceSelection } from "@/components/instances/use-instance-selection";
import { useNow } from "@/components/instances/use-now";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { duration, timestamp } from "@/components/ui/format-time";
import { Skeleton } from "@/components/ui/skeleton";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";
import { SearchInput } from "@/components/ui/search-input";
import { TabBar } from "@/components/ui/tab-bar";
import { rowLabel, rowTitle, StatusBadge } from "@/components/ui/status-badge";
import { LocalTime } from "@/components/ui/local-time";
import { useHydrated } from "@/components/ui/use-hydrated";
import { useUrlFlag } from "@/components/ui/use-url-flag";

type Tab = "all" | "waiting" | InstanceStatus;
const TABS: readonly { tab: Tab; label: string }[] = [
  { tab: "all", label: "All" },
  { tab: "running", label: "Running" },
  { tab: "waiting", label: "Waiting for you" },
  { tab: "paused", label: "Paused" },
  { tab: "completed", label: "Completed" },
  { tab: "failed", label: "Failed" },
  { tab: "stopped", label: "Stopped" },
  { tab: "crashed", label: "Crashed" },
];
const SINCE: Record<string, { label: string; ms: number }> = {
  "1h": { label: "Last hour", ms: 3_600_000 },
  "24h": { label: "Last 24 hours", ms: 86_400_000 },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000 },
};
const PAGE = 50;

/**
 * Every instance, newest activity first, paged and filtered on the server (status, waiting for input,
 * graph, text over id and input, time range, archived) with totals per status. The filters live in the
 * URL (a graph row's "N total" link is `/instances?graph=<name>`); the loaded pages refresh every 2 s.
 * Rows can be selected for a bulk archive or delete (BulkBar); a selection belongs to its filter.
 */
export function InstanceList() {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const tab = (params.get("status") ?? "all") as Tab;
  const graph = params.get("graph") ?? undefined;
  const q = params.get("q") ?? "";
  const since = params.get("since") ?? "";
  const archived = params.get("archived") === "only" ? "only" : "exclude";
  const [archivedShown, showArchived] = useUrlFlag(archived === "only");
  const [text, setText] = useState(q);
  const now = useNow(1_000);
  const hydrated = useHydrated();

  const setParam = (key: string, value: string | null) => {
    // From the address bar, not this render's params: the search box writes after a pause, and must
    // not undo a tab clicked meanwhile. The browser's replaceState changes the address at once (Next's
    // router follows, no server round trip), so the next change reads this one; router.replace changed
    // it only once its navigation committed, and a quick second change undid the first.
    const next = new URLSearchParams(window.location.search);
    if (value === null || value === "" || (key === "status" && value === "all")) next.delete(key);
    else next.set(key, value);
    window.history.replaceState(null, "", `/instances${next.size ? `?${next}` : ""}`);
  };
  // The search box writes the URL once typing pauses.
  useEffect(() => {
    if (text === q) return;
    const id = setTimeout(() => setParam("q", text.trim()), 300);
    return () => clearTimeout(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);

  // Rounded to the minute so the query key (and the server's answer) stays put between refreshes.
  const from = since && SINCE[since] ? Math.floor((now - SINCE[since].ms) / 60_000) * 60_000 : undefined;
  const query = useMemo(
    () => ({
      status: tab === "all" || tab === "waiting" ? undefined : tab,
      // Runs waiting for input have their own tab: Paused lists (and counts) the others.
      waiting: tab === "waiting" ? true : tab === "paused" ? false : undefined,
      graph,
      q: q || undefined,
      from,
      archived: archived as "only" | "exclude",
    }),
    [tab, graph, q, from, archived],
  );
  const list = useInfiniteQuery({
    queryKey: ["instances", "page", query],
    queryFn: ({ pageParam }) => client.instances.page.query({ ...query, cursor: pageParam ?? undefined, limit: PAGE }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: 2_000,
    placeholderData: keepPreviousData,
  });
  const graphs = useQuery({ queryKey: ["specs", "list"], queryFn: () => client.specs.list.query(), staleTime: 10_000 });
  const first = list.data?.pages[0];
  const rows = list.data?.pages.flatMap((p) => p.items) ?? [];
  const counts = first?.counts;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["instances"] });
  const filtered = tab !== "all" || graph || q || since || archived === "only";
  // Keyed by the time range's name, not its moving start: the selection outlives a minute's tick.
  const selection = useInstanceSelection({ listed: rows.map((r) => r.instanceId), total: first?.total ?? 0, filterKey: JSON.stringify({ ...query, from: since }) });

  return (
    <main className="mx-auto max-w-6xl px-6 py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-white">Instances</h1>
      <p className="mt-1 text-sm text-zinc-400">Runs of your graphs, live. Open one to watch it, answer it, pause or resume it.</p>

      <TabBar
        label="Filter by status"
        className="mt-6"
        value={tab}
        onChange={(t) => setParam("status", t)}
        tabs={TABS.map(({ tab: t, label }) => {
          const n = !counts ? null : t === "all" ? counts.all : t === "waiting" ? counts.waiting : t === "paused" ? counts.byStatus.paused - counts.waiting : counts.byStatus[t];
          return {
            value: t,
            label: (
              <>
                {label}
                {n !== null && <span className="ml-1.5 tabular-nums text-zinc-500">{n.toLocaleString()}</span>}
              </>
            ),
          };
        })}
      />

      <div className="mt-3 flex flex-wrap items-center gap-2 text-xs">
        <SearchInput label="Search instances" placeholder="Search id or input…" value={text} onChange={setText} />
        <select
          aria-label="Graph"
          value={graph ?? ""}
          onChange={(e) => setParam("graph", e.target.value)}
          // As wide as its longest graph name otherwise: one long name stretched it across the row.
          className="max-w-56 rounded-md border border-white/15 bg-zinc-950 px-2 py-1.5 text-zinc-200"
        >
          <option value="">Every graph</option>
          {[...new Set([...(graphs.data ?? []).map((g) => g.name), ...(graph ? [graph] : [])])].sort().map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <select aria-label="Started" value={since} onChange={(e) => setParam("since", e.target.value)} className="rounded-md border border-white/15 bg-zinc-950 px-2 py-1.5 text-zinc-200">
          <option value="">Any time</option>
          {Object.entries(SINCE).map(([key, s]) => (
            <option key={key} value={key}>
              {s.label}
            </option>
          ))}
        </select>
        <label className="flex items-center gap-1.5 text-zinc-400">
          <input
            type="checkbox"
            aria-label="Archived only"
            checked={archivedShown}
            onChange={(e) => {
              showArchived(e.target.checked);
              setParam("archived", e.target.checked ? "only" : null);
            }}
          />
          Archived{counts ? ` (${counts.archived.toLocaleString()})` : ""}
        </label>
        {filtered && (
          <Link href="/instances" className="rounded-full border border-white/15 px-2.5 py-1 text-zinc-300 hover:bg-white/5">
            Clear filters ✕
          </Link>
        )}
        {first && first.total > 0 && (
          <span data-testid="instance-total" className="ml-auto text-zinc-500">
            {rows.length.toLocaleString()} of {first.total.toLocaleString()} {first.total === 1 ? "run" : "runs"}
          </span>
        )}
      </div>

      <div className="mt-4">
        {list.isPending ? (
          <div className="space-y-2">{[1, 2, 3, 4, 5].map((i) => <Skeleton key={i} className="h-12" />)}</div>
        ) : list.isError ? (
          <ErrorState title="Could not load the instances" error={list.error} onRetry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          // Filtered to nothing, the way out is the filters, not a new run.
          <EmptyState
            title={filtered ? "No runs match this filter" : "No runs yet"}
            action={
              <Link href={filtered ? "/instances" : "/graphs"} className="rounded-lg bg-indigo-500 px-3.5 py-1.5 text-sm font-semibold text-on-accent hover:bg-indigo-400">
                {filtered ? "Clear filters" : "Open a graph to run it"}
              </Link>
            }
          >
            {filtered ? "Try another status, graph, time range or search." : "Open a graph and press Run: its instance shows up here, live."}
          </EmptyState>
        ) : (
          <>
            {/* One line per run (a status or "2 min ago" broken in two reads badly); only a long graph name wraps. */}
            <TableFrame className="whitespace-nowrap">
              <TableHead>
                <Th compact className="w-px pr-0 xl:pr-0">
                  <input
                    type="checkbox"
                    aria-label="Select the listed runs"
                    className="align-middle"
                    checked={selection.listed === "all"}
                    ref={(el) => void (el && (el.indeterminate = selection.listed === "some"))}
                    onChange={selection.toggleListed}
                  />
                </Th>
                <Th compact>Graph</Th>
                <Th compact>Instance</Th>
                <Th compact>Status</Th>
                <Th compact right>Version</Th>
                <Th compact>Started</Th>
                <Th compact right>Duration</Th>
                <Th compact>Last activity</Th>
                <Th compact label="Actions" />
              </TableHead>
              <tbody className="divide-y divide-white/5">
                {rows.map((r) => (
                  <tr
                    key={r.instanceId}
                    data-testid="instance-row"
                    data-instance={r.instanceId}
                    data-queued={r.queued?.kind}
                    data-selected={selection.has(r.instanceId) || undefined}
                    className={`group cursor-pointer hover:bg-white/[0.03] ${selection.has(r.instanceId) ? "bg-indigo-500/[0.07]" : ""}`}
                    onClick={() => router.push(`/instances/${encodeURIComponent(r.instanceId)}`)}
                  >
                    {/* The whole cell ticks the box: a near miss must not open the run. */}
                    <td className="w-px p-0" onClick={(e) => e.stopPropagation()}>
                      <label className="flex cursor-pointer items-center py-3 pl-2 pr-0 xl:pl-3">
                        <input type="checkbox" aria-label={`Select ${r.instanceId}`} checked={selection.has(r.instanceId)} onChange={() => selection.toggle(r.instanceId)} />
                      </label>
                    </td>
                    <td className="whitespace-normal px-2 py-3 xl:px-3 font-semibold text-zinc-100">
                      {r.graphName}
                      {r.archived && <span className="ml-2 rounded border border-white/15 px-1.5 py-0.5 text-[10px] font-normal uppercase text-zinc-400">archived</span>}
                    </td>
                    <td className="px-2 py-3 xl:px-3">
                      <Link href={`/instances/${encodeURIComponent(r.instanceId)}`} className="font-mono text-xs text-zinc-400 group-hover:text-indigo-300">
                        {r.instanceId}
                      </Link>
                    </td>
                    <td className="px-2 py-3 xl:px-3">
                      <StatusBadge status={r.status} label={rowLabel(r)} title={rowTitle(r)} />
                    </td>
                    <td className="px-2 py-3 xl:px-3 text-right tabular-nums text-zinc-300">{r.version}</td>
                    <td className="px-2 py-3 xl:px-3 text-zinc-400">
                      <LocalTime at={r.createdAt} format="ago" now={now} title={timestamp(r.createdAt)} />
                    </td>
                    <td data-testid="instance-duration" className="px-2 py-3 xl:px-3 text-right tabular-nums text-zinc-300">
                      {r.status === "running" && !hydrated ? "—" : duration((r.status === "running" ? now : r.updatedAt) - r.createdAt)}
                    </td>
                    <td className="px-2 py-3 xl:px-3 text-zinc-400">
                      <LocalTime at={r.updatedAt} format="ago" now={now} title={timestamp(r.updatedAt)} />
                    </td>
                    <td className="px-2 py-2 text-right">
                      <span className="opacity-0 group-hover:opacity-100 focus-within:opacity-100">
                        <InstanceActions instanceId={r.instanceId} status={r.status} archived={r.archived} onChanged={refresh} onDeleted={refresh} />
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableFrame>
          </>
        )}
        {list.hasNextPage && (
          <div className="mt-3 flex justify-center">
            <Button onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              {list.isFetchingNextPage ? "Loading…" : `Show ${PAGE} more`}
            </Button>
          </div>
        )}
        <BulkBar selection={selection} filter={query} total={first?.total ?? 0} archivedList={archived === "only"} onDone={refresh} />
      </div>
    </main>
  );
}
