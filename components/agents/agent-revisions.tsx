"use client";

import { useQuery } from "@tanstack/react-query";
import { useModexClient } from "@/components/api/modex-client";
import { timestamp } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";

/**
 * How many revisions the agent has, and when each was saved (newest first). Saving said "a new
 * revision", but nothing on the page showed one: the history was reachable only through tRPC.
 */
export function AgentRevisions({ name }: { name: string }) {
  const client = useModexClient();
  const history = useQuery({ queryKey: ["agents", "history", name], queryFn: () => client.agents.history.query({ name }) });
  if (!history.data || history.data.length === 0) return null;
  const count = history.data.length;
  return (
    <details data-testid="agent-revisions" className="relative text-xs text-zinc-400">
      <summary className="cursor-pointer select-none hover:text-white" title="Every saved revision of this agent, newest first">
        {count} revision{count === 1 ? "" : "s"}
      </summary>
      <ol className="absolute left-0 z-20 mt-1 max-h-64 w-64 overflow-y-auto rounded-lg border border-white/10 bg-zinc-900 p-2 shadow-lg">
        {history.data.map((r, i) => (
          <li key={r.agentId} data-testid="agent-revision" className="flex items-center gap-2 px-1 py-1">
            <LocalTime at={r.createdAt} title={timestamp(r.createdAt)} className="text-zinc-200" />
            {i === 0 && <span className="text-emerald-300">latest</span>}
            <span className="ml-auto font-mono text-[10px] text-zinc-500" title="Revision id (GET /api/agents/{id})">
              {r.agentId}
            </span>
          </li>
        ))}
      </ol>
    </details>
  );
}
