"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { AgentEditor } from "@/components/agents/agent-editor";
import { useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";
import { useDocumentTitle } from "@/components/ui/use-document-title";

/** Named agents: the list on the left, the selected one (`?agent=`) or a new one (`?new=1`) in the editor. */
export function AgentsPage() {
  const client = useModexClient();
  const router = useRouter();
  const params = useSearchParams();
  const agents = useQuery({ queryKey: ["agents", "list"], queryFn: () => client.agents.list.query(), refetchInterval: 10_000 });
  const creating = params.get("new") === "1";
  const selected = creating ? null : (params.get("agent") ?? agents.data?.[0]?.name ?? null);
  const open = (name: string) => router.replace(`/agents?agent=${encodeURIComponent(name)}`);
  const startNew = () => router.replace("/agents?new=1");
  // The tab names the agent in the editor, as a chat's or a run's does.
  const listed = selected !== null && agents.data?.some((a) => a.name === selected);
  useDocumentTitle(creating ? "New agent · Agents" : listed ? `${selected} · Agents` : null);

  return (
    <main data-testid="agents-page" className="flex h-[calc(100dvh-3.5rem)] min-w-[1024px]">
      <nav aria-label="Agents" className="flex w-72 shrink-0 flex-col border-r border-white/10">
        <div className="flex h-12 shrink-0 items-center justify-between border-b border-white/10 px-4">
          <h1 className="text-sm font-semibold text-white">Agents</h1>
          <Button size="sm" variant="primary" onClick={startNew}>
            New agent
          </Button>
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto p-2">
          {agents.isPending ? (
            <div className="space-y-2 p-2" aria-label="Loading agents">
              {[0, 1, 2].map((i) => (
                <Skeleton key={i} className="h-12" />
              ))}
            </div>
          ) : agents.isError ? null : (
            <ul className="space-y-1">
              {agents.data.map((a) => (
                <li key={a.agentId}>
                  <button
                    type="button"
                    data-testid="agent-row"
                    aria-current={a.name === selected ? "page" : undefined}
                    onClick={() => open(a.name)}
                    className={`w-full rounded-lg px-3 py-2 text-left ${a.name === selected ? "bg-white/10" : "hover:bg-white/[0.04]"}`}
                  >
                    <span className="block text-sm font-semibold text-zinc-100">{a.name}</span>
                    <span className="mt-0.5 block truncate text-xs text-zinc-500">{a.description ?? "does not read: open it to see why"}</span>
                    {a.tools.length > 0 && <span className="mt-1 block truncate font-mono text-[10px] text-zinc-500">{a.tools.join(" · ")}</span>}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      </nav>
      <section className="flex min-w-0 flex-1 flex-col">
        {agents.isError ? (
          <div className="p-6">
            <ErrorState title="Could not load the agents" error={agents.error} onRetry={() => void agents.refetch()} />
          </div>
        ) : creating || selected !== null ? (
          <AgentEditor key={creating ? "new" : selected} name={selected} onSaved={open} />
        ) : agents.isPending ? null : (
          <div className="mx-auto mt-16 w-full max-w-xl px-6">
            <EmptyState title="No agents yet" action={<Button variant="primary" onClick={startNew}>Create your first agent</Button>}>
              An agent is one declaration — instructions, tools, model, limits — that the chat and <code className="font-mono text-zinc-300">agent</code> graph nodes both run.
              Write one here, or put YAML files in <code className="font-mono text-zinc-300">config/agents/</code> and restart Modex.
            </EmptyState>
          </div>
        )}
      </section>
    </main>
  );
}
