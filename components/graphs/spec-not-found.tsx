import Link from "next/link";

/** The editor page of a graph that cannot be opened: said at once, with the ways on. */
export function SpecNotFound({ name, message, notFound = true }: { name: string; message: string; notFound?: boolean }) {
  return (
    <main className="mx-auto max-w-6xl px-6 py-10">
      <Link href="/graphs" className="text-sm text-zinc-400 hover:text-white">← Graphs</Link>
      <div className="mt-6 rounded-xl border border-rose-500/30 bg-rose-950/30 px-5 py-4" role="alert" data-testid="spec-not-found">
        <p className="text-sm font-semibold text-rose-100">{notFound ? `There is no graph named “${name}”` : `Could not open the graph “${name}”`}</p>
        <p className="mt-1 font-mono text-xs text-rose-300/90">{message}</p>
        {notFound && (
          <p className="mt-3 text-sm text-zinc-300">
            It may have been renamed, or never saved.{" "}
            <Link href="/graphs" className="font-semibold text-indigo-300 hover:text-indigo-200">See all graphs</Link> or{" "}
            <Link href={`/graphs/new?name=${encodeURIComponent(name)}`} className="font-semibold text-indigo-300 hover:text-indigo-200">create “{name}”</Link>.
          </p>
        )}
      </div>
    </main>
  );
}
