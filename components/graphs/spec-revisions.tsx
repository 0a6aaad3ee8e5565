"use client";

import { useQuery } from "@tanstack/react-query";
import { useModexClient } from "@/components/api/modex-client";

/**
 * The Version cell of a graph row: how many revisions are saved (each save that changed the YAML is
 * one), with the spec's own `version:` label beside it. Shares the History dialog's query; refreshed
 * when a save invalidates `["specs"]`.
 */
export function SpecRevisions({ name, label }: { name: string; label: string }) {
  const client = useModexClient();
  const history = useQuery({ queryKey: ["specs", "history", name], queryFn: () => client.specs.history.query({ name }), staleTime: 30_000 });
  const count = history.data?.length;
  return (
    <span data-testid="spec-revisions" data-count={count ?? ""} title={label ? `The spec's own version label: ${label}` : undefined}>
      <span className="tabular-nums text-zinc-200">{count === undefined ? "…" : `${count} ${count === 1 ? "revision" : "revisions"}`}</span>
      {label && <span className="ml-2 font-mono text-zinc-500">v{label}</span>}
    </span>
  );
}
