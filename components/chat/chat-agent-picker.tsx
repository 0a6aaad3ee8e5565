"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useModexClient } from "@/components/api/modex-client";

/**
 * Which named agent the chat talks to: a select while a new chat starts, then the chat's agent (fixed
 * for its life, so its approvals resume on the same agent).
 */
export function ChatAgentPicker({ session, starting, value, onChange }: { session: string | null; starting: boolean; value: string | null; onChange(name: string): void }) {
  const client = useModexClient();
  const agents = useQuery({ queryKey: ["agents", "list"], queryFn: () => client.agents.list.query(), staleTime: 10_000, enabled: starting });
  if (!starting) {
    return session ? (
      <Link href={`/agents?agent=${encodeURIComponent(session)}`} data-testid="chat-agent" className="text-xs text-zinc-400 hover:text-white">
        Agent <span className="ml-1 font-semibold text-zinc-200">{session}</span>
      </Link>
    ) : null;
  }
  const names = agents.data?.map((a) => a.name) ?? [];
  if (value && !names.includes(value)) names.unshift(value);
  return (
    <label className="flex items-center gap-2 text-xs text-zinc-400">
      Agent
      <select
        aria-label="Agent"
        data-testid="chat-agent-select"
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value)}
        className="rounded-md border border-white/15 bg-zinc-900 px-2 py-1 text-xs text-zinc-100 outline-none focus:border-indigo-400/60"
      >
        {names.map((n) => (
          <option key={n} value={n} title={agents.data?.find((a) => a.name === n)?.description ?? undefined}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}
