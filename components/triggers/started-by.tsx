"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useModexClient } from "@/components/api/modex-client";
import type { StartedByDto } from "@/components/triggers/trigger-types";

/** "webhook deploy", "schedule nightly (fire 09:00)", "user", "API": what started an instance. */
export function startedByLabel(s: StartedByDto): string {
  if (!s) return "unknown";
  if (s.kind === "schedule") return `schedule ${s.name}`;
  if (s.kind === "webhook") return `webhook ${s.name}`;
  return s.kind === "api" ? "API" : "user";
}

/** The instance summary's "Started by" value (its own query, so the summary's shape stays as it is). */
export function StartedBy({ instanceId }: { instanceId: string }) {
  const client = useModexClient();
  const q = useQuery({ queryKey: ["triggers", "startedBy", instanceId], queryFn: () => client.triggers.startedBy.query({ instanceId }), staleTime: Infinity });
  if (!q.data) return <span data-testid="started-by" className="text-zinc-500">{q.isPending ? "…" : "unknown"}</span>;
  const label = startedByLabel(q.data);
  const trigger = q.data.kind === "schedule" || q.data.kind === "webhook";
  return (
    <span data-testid="started-by" title={q.data.kind === "schedule" ? `fire of ${new Date(q.data.fireAt).toLocaleString()}` : undefined}>
      {trigger ? (
        <Link href="/triggers" className="text-indigo-300 hover:text-indigo-200">
          {label}
        </Link>
      ) : (
        label
      )}
    </span>
  );
}
