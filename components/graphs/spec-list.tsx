"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useModexClient } from "@/components/api/modex-client";
import { NewGraphDialog } from "@/components/graphs/new-graph-dialog";
import { SpecActions } from "@/components/graphs/spec-actions";
import { RunDialog } from "@/components/graphs/run-dialog";
import { SpecRevisions } from "@/components/graphs/spec-revisions";
import { CopyButton } from "@/components/shell/copy-button";
import { Button } from "@/components/ui/button";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { timestamp } from "@/components/ui/format-time";
import { SearchInput } from "@/components/ui/search-input";
import { Skeleton } from "@/components/ui/skeleton";
import { LocalTime } from "@/components/ui/local-time";

/** Every saved spec (latest revision), with its node count and instances (counted by the server), and "New graph". */
export function SpecList() {
  const client = useModexClient();
  const [showArchived, setShowArchived] = useState(false);
  const specs = useQuery({
    queryKey: ["specs", "list", showArchived ? "archived" : "current"],
    queryFn: () => client.specs.list.query({ archived: showArchived ? "only" : "exclude" }),
    refetchInterval: 5_000,
  });
  const [creating, setCreating] = useState(false);
  const [running, setRunning] = useState<string | null>(null);
  // A plain filter over what is loaded (every spec's latest revision): names and descriptions.
  const [text, setText] = useState("");
  const needle = text.trim().toLowerCase();
  const shown = !specs.data || needle === "" ? specs.data : specs.data.filter((s) => s.name.toLowerCase().includes(needle) || (s.description ?? "").toLowerCase().includes(needle));
  const filtered = needle !== "" || showArchived;
  const clearFilters = () => {
    setText("");
    setShowArchived(false);
  };

  return (
    <main className="mx-auto max-w-6xl px-6 py-10">
      <div className="flex items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-white">Graphs</h1>
          <p className="mt-1 text-sm text-zinc-400">Workflow specs written in YAML. Open one to edit it, see its graph, and run it.</p>
        </div>
        <div className="flex items-center gap-3">
          <SearchInput label="Filter graphs" placeholder="Filter by name or description…" value={text} onChange={setText} />
          <label className="flex items-center gap-1.5 whitespace-nowrap text-xs text-zinc-400">
            <input type="checkbox" aria-label="Archived graphs" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
            Archived only
          </label>
          <Button variant="primary" className="whitespace-nowrap" onClick={() => setCreating(true)}>
            New graph
          </Button>
        </div>
      </div>

      <div className="mt-8">
        {specs.isPending ? (
          <div className="space-y-2" aria-label="Loading graphs">
            {[0, 1, 2, 3].map((i) => (
              <Skeleton key={i} className="h-14" />
            ))}
          </div>
        ) : specs.isError ? (
          <ErrorState title="Could not load the graphs" error={specs.error} onRetry={() => void specs.refetch()} />
        ) : shown!.length === 0 && filtered ? (
          // Filtered to nothing, the way out is the filter, not a new graph.
          <EmptyState title={needle === "" ? "No archived graphs" : "No graphs match this filter"} action={<Button onClick={clearFilters}>Clear filters</Button>}>
            {needle === "" ? "Archiving a graph (its row's Archive button) hides it from this list without deleting it." : showArchived ? "No archived graph has this in its name or description." : "No graph has this in its name or description."}
          </EmptyState>
        ) : specs.data.length === 0 ? (
          <EmptyState title="No graphs yet" action={<Button variant="primary" onClick={() => setCreating(true)}>Create your first graph</Button>}>
            Start from a template, or put YAML specs in <code className="font-mono text-zinc-300">config/graphs/</code> and restart Modex.
          </EmptyState>
        ) : (
          <TableFrame>
              <TableHead>
                <Th>Name</Th>
                <Th>Version</Th>
                <Th className="whitespace-nowrap">Last saved</Th>
                <Th right>Nodes</Th>
                <Th right>Instances</Th>
                <Th label="Run" />
              </TableHead>
              <tbody className="divide-y divide-white/5">
                {shown!.map((s) => {
                  const count = s.instances ?? { running: 0, total: 0 };
                  return (
                  <tr key={s.specId} data-testid="spec-row" className="group hover:bg-white/[0.03]">
                    <td className="px-4 py-3">
                      <Link href={`/graphs/${encodeURIComponent(s.name)}`} className="font-semibold text-zinc-100 group-hover:text-indigo-300">
                        {s.name}
                      </Link>
                      <CopyButton value={s.specId} label="Copy id" className="ml-2 opacity-0 group-hover:opacity-100 focus:opacity-100" />
                      <SpecActions name={s.name} archived={s.archived} instances={s.instances?.total ?? 0} />
                      {s.description && <p className="mt-0.5 max-w-[min(36rem,36vw)] truncate text-xs text-zinc-500" title={s.description}>{s.description}</p>}
                    </td>
                    <td className="whitespace-nowrap px-4 py-3 text-xs"><SpecRevisions count={s.revisions ?? 1} label={s.version} /></td>
                    <td className="px-4 py-3 text-zinc-400">
                      <LocalTime at={s.createdAt} format="ago" title={timestamp(s.createdAt)} />
                    </td>
                    <td data-testid="spec-node-count" className="px-4 py-3 text-right tabular-nums text-zinc-300">{s.nodeCount ?? "—"}</td>
                    <td className="whitespace-nowrap px-4 py-3 text-right tabular-nums">
                      {count.running > 0 && <span className="mr-2 text-indigo-300">{count.running} running</span>}
                      {/* A graph never run says so, without a link to an empty list ("0 total"). */}
                      {count.total === 0 ? (
                        <span className="text-zinc-600">not run yet</span>
                      ) : (
                        <Link href={`/instances?graph=${encodeURIComponent(s.name)}`} className="text-zinc-400 hover:text-white">
                          {count.total} total
                        </Link>
                      )}
                    </td>
                    <td className="whitespace-nowrap px-4 py-3 text-right">
                      <Button size="sm" variant="primary" onClick={() => setRunning(s.name)} title={`Start an instance of ${s.name}'s latest version`} aria-label={`Run ${s.name}`}>
                        ▶ Run
                      </Button>
                    </td>
                  </tr>
                  );
                })}
              </tbody>
            </TableFrame>
        )}
      </div>
      <NewGraphDialog open={creating} onClose={() => setCreating(false)} />
      {running && <RunDialog open onClose={() => setRunning(null)} specRef={running} />}
    </main>
  );
}
