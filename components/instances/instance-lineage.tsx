"use client";

import Link from "next/link";
import type { InstanceDetail } from "@/components/api/contract";

const short = (id: string) => `…${id.slice(-6)}`;

/** In the instance header: the instance this one was forked from, and the forks made from this one. */
export function InstanceLineage({ lineage }: { lineage: InstanceDetail["summary"]["lineage"] }) {
  const { forkedFrom, forks } = lineage;
  if (!forkedFrom && forks.length === 0) return null;
  return (
    <span className="flex shrink-0 items-center gap-2 whitespace-nowrap text-[11px] text-zinc-400" data-testid="instance-lineage">
      {forkedFrom && (
        <Link
          href={`/instances/${forkedFrom.instanceId}`}
          data-testid="forked-from"
          data-event={forkedFrom.eventNumber ?? forkedFrom.eventId}
          title={`Forked from ${forkedFrom.instanceId}, right after event ${forkedFrom.eventNumber ?? forkedFrom.eventId} of v${forkedFrom.version} (id ${forkedFrom.eventId})${forkedFrom.stateEdited ? ", with an edited state" : ""}${forkedFrom.specId ? ", on a newer spec revision" : ""}`}
          className="rounded border border-white/10 px-1.5 py-0.5 hover:border-indigo-400/60 hover:text-white"
        >
          fork of {short(forkedFrom.instanceId)}
        </Link>
      )}
      {forks.length > 0 && (
        <details className="relative" data-testid="forks">
          <summary className="cursor-pointer list-none rounded border border-white/10 px-1.5 py-0.5 hover:border-indigo-400/60 hover:text-white">
            {forks.length} fork{forks.length === 1 ? "" : "s"}
          </summary>
          <ul className="absolute left-0 top-6 z-20 min-w-56 rounded-lg border border-white/10 bg-zinc-900 p-1 shadow-xl">
            {forks.map((f) => (
              <li key={f.instanceId}>
                <Link href={`/instances/${f.instanceId}`} className="block rounded px-2 py-1 font-mono text-[11px] text-zinc-300 hover:bg-white/5 hover:text-white">
                  {f.instanceId} <span className="text-zinc-500">@ event {f.eventNumber ?? f.eventId}</span>
                </Link>
              </li>
            ))}
          </ul>
        </details>
      )}
    </span>
  );
}
