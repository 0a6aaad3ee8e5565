"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { McpServerInfo } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";

const STATE_LOOK: Record<McpServerInfo["state"], { label: string; look: string }> = {
  not_started: { label: "not started", look: "border-white/15 text-zinc-400" },
  starting: { label: "starting", look: "border-amber-400/30 text-amber-200" },
  running: { label: "running", look: "border-emerald-400/30 text-emerald-200" },
  failed: { label: "failed", look: "border-red-400/40 text-red-300" },
};

/**
 * The MCP servers of config/mcp with their state, refreshed every few seconds (a server starts when an
 * agent first uses it, and may crash). When one has listed new tools, the tool catalog is refetched.
 */
export function McpServersPanel() {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const servers = useQuery({ queryKey: ["agents", "mcpServers"], queryFn: () => client.agents.mcpServers.query(), refetchInterval: 3_000 });
  const listed = (servers.data ?? []).map((s) => `${s.name}:${s.starts}:${s.tools?.length ?? -1}`).join(",");
  const seen = useRef(listed);
  useEffect(() => {
    if (listed !== seen.current) void queryClient.invalidateQueries({ queryKey: ["agents", "tools"] });
    seen.current = listed;
  }, [listed, queryClient]);

  if (!servers.data) return null;
  return (
    <div data-testid="mcp-servers">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">MCP servers</h2>
      {servers.data.length === 0 ? (
        <p className="mt-2 text-xs leading-5 text-zinc-500">None configured: add one as config/mcp/&lt;name&gt;.yml (see the README).</p>
      ) : (
        <ul className="mt-2 space-y-2">
          {servers.data.map((s) => (
            <ServerItem key={s.name} server={s} />
          ))}
        </ul>
      )}
    </div>
  );
}

function ServerItem({ server: s }: { server: McpServerInfo }) {
  const state = STATE_LOOK[s.state];
  return (
    <li data-testid={`mcp-server-${s.name}`} data-state={s.state} className="rounded-lg border border-white/10 px-3 py-2">
      <div className="flex flex-wrap items-center gap-1.5">
        <span className="font-mono text-xs font-semibold text-zinc-100">{s.name}</span>
        <span className={`rounded border px-1 py-px text-[10px] ${state.look}`}>{state.label}</span>
        <span className="rounded border border-white/15 px-1 py-px text-[10px] text-zinc-400">{s.transport}</span>
      </div>
      {s.description && <p className="mt-1 text-xs leading-5 text-zinc-400">{s.description}</p>}
      <p className="mt-1 truncate font-mono text-[10px] text-zinc-500" title={s.target}>
        {s.target}
      </p>
      {s.state === "failed" && s.reason && <p className="mt-1 break-words text-xs leading-5 text-red-300">{s.reason}</p>}
      <p className="mt-1 text-[11px] leading-5 text-zinc-500">
        {s.tools === null ? "Starts when an agent first uses it; its tools are listed then." : `${s.tools.length} tools`}
        {s.starts > 1 && ` · restarted ${s.starts - 1}×`}
        {" · "}
        <span className="font-mono">{`${s.name}__*`}</span> names them all
      </p>
    </li>
  );
}
