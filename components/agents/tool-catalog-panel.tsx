import type { AgentTool } from "@/components/api/contract";

/** The tools a definition's `tools:` may name, with what each does and whether it asks or only reads. */
export function ToolCatalogPanel({ tools, selected }: { tools: readonly AgentTool[]; selected: readonly string[] }) {
  return (
    <div data-testid="tool-catalog">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Tool catalog</h2>
      <ul className="mt-2 space-y-2">
        {tools.map((t) => (
          <li key={t.name} className={`rounded-lg border px-3 py-2 ${selected.includes(t.name) ? "border-indigo-400/40 bg-indigo-500/[0.06]" : "border-white/10"}`}>
            <div className="flex flex-wrap items-center gap-1.5">
              <span className="font-mono text-xs font-semibold text-zinc-100">{t.name}</span>
              {t.scope === "graph_node" && <Badge>every graph node</Badge>}
              {t.server && <Badge tone="sky">{`MCP · ${t.server}`}</Badge>}
              {t.needsApproval && <Badge tone="amber">asks approval</Badge>}
              {t.readOnly && <Badge tone="emerald">read-only</Badge>}
            </div>
            <p className="mt-1 text-xs leading-5 text-zinc-400">{t.description}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}

const BADGE_LOOK = { amber: "border-amber-400/30 text-amber-200", emerald: "border-emerald-400/30 text-emerald-200", sky: "border-sky-400/30 text-sky-200" } as const;

function Badge({ children, tone }: { children: string; tone?: keyof typeof BADGE_LOOK }) {
  const look = tone ? BADGE_LOOK[tone] : "border-white/15 text-zinc-400";
  return <span className={`rounded border px-1 py-px text-[10px] ${look}`}>{children}</span>;
}
