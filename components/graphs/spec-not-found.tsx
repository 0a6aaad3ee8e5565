"use client";

import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { useDocumentTitle } from "@/components/ui/use-document-title";

/**
 * The editor page of a graph that cannot be opened: said at once, with the ways on. An unknown name is
 * no failure (the same empty state as an unknown instance); any other error is, with the server's message.
 */
export function SpecNotFound({ name, message, notFound = true }: { name: string; message: string; notFound?: boolean }) {
  // The route's title is the name asked for, as if the graph were there.
  useDocumentTitle(notFound ? "Graph not found" : null);
  return (
    <main className="mx-auto max-w-6xl px-6 py-10">
      <Link href="/graphs" className="text-sm text-zinc-400 hover:text-white">← Graphs</Link>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight text-white">{notFound ? "Graph not found" : "Graph"}</h1>
      {notFound ? (
        <div className="mt-6" data-testid="spec-not-found">
          <EmptyState
            title={`There is no graph named “${name}”`}
            action={
              <div className="flex items-center gap-3">
                <Link href={`/graphs/new?name=${encodeURIComponent(name)}`} className="rounded-lg bg-indigo-500 px-3.5 py-1.5 text-sm font-semibold text-on-accent hover:bg-indigo-400">
                  Create “{name}”
                </Link>
                <Link href="/graphs" className="rounded-lg border border-white/15 px-3.5 py-1.5 text-sm font-semibold text-zinc-200 hover:bg-white/5">
                  See all graphs
                </Link>
              </div>
            }
          >
            It may have been renamed, or never saved.
          </EmptyState>
        </div>
      ) : (
        <div className="mt-6 rounded-xl border border-rose-500/30 bg-rose-950/30 px-5 py-4" role="alert" data-testid="spec-not-found">
          <p className="text-sm font-semibold text-rose-100">Could not open the graph “{name}”</p>
          <p className="mt-1 font-mono text-xs text-rose-300/90">{message}</p>
        </div>
      )}
    </main>
  );
}
