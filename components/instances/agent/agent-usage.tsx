"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { InstanceUsageDto } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import { formatCost } from "@/components/ui/format-cost";
import { runTurnTraceHref } from "@/components/traces/run-turn-trace-href";
import { INCLUDES_ESTIMATES_TITLE } from "@/components/ui/estimated-tokens";

const n = (v: number) => v.toLocaleString("en");

function Totals({ label, u, currency, testId }: { label: string; u: Omit<InstanceUsageDto, "instanceId" | "currency" | "models" | "nodes">; currency: string | null; testId: string }) {
  const cost = formatCost(u.cost, currency);
  return (
    <p data-testid={testId} className="flex flex-wrap items-baseline gap-x-2 text-zinc-300">
      <span className="text-zinc-500">{label}</span>
      <span>
        {u.estimated && "~"}
        {n(u.inputTokens + u.outputTokens)} tokens ({n(u.inputTokens)} in · {n(u.outputTokens)} out) · {u.calls} call{u.calls === 1 ? "" : "s"}
      </span>
      {u.estimated && <Estimated />}
      {cost && <span className="text-emerald-300">{u.estimated ? `~${cost}` : cost}</span>}
      {u.unpriced.length > 0 && <span className="text-zinc-500">(no price for {u.unpriced.join(", ")})</span>}
    </p>
  );
}

/** Says that a total holds an estimate: a model call a stop cut short, whose provider reported no usage. */
function Estimated() {
  return (
    <span data-testid="agent-usage-estimated" className="text-amber-300/80" title={INCLUDES_ESTIMATES_TITLE}>
      (includes estimates)
    </span>
  );
}

/**
 * An agent node's token usage in the node detail: the node's total (per model, priced from the model
 * price table), the run's total over all its agent nodes, and each turn with a link to its trace
 * waterfall. Its query lives under the instance's key, so the instance view's refresh updates it.
 */
export function AgentUsage({ instanceId, version, node }: { instanceId: string; version: number | undefined; node: string }) {
  const client = useModexClient();
  const usage = useQuery({
    queryKey: ["instances", "get", instanceId, version, "usage"],
    queryFn: () => client.agentRuns.usage.query({ instanceId, version }),
  });
  if (!usage.data) return null;
  const own = usage.data.nodes.find((x) => x.node === node);
  if (!own) return null;
  const { currency } = usage.data;
  return (
    <div data-testid="agent-usage" className="mt-2 space-y-1 rounded-md border border-sky-400/20 bg-sky-400/[0.04] p-2 text-xs">
      <Totals label="This node" u={own} currency={currency} testId="agent-usage-node" />
      {own.models.length > 1 &&
        own.models.map((m) => <Totals key={m.model} label={`· ${m.model}`} u={m} currency={currency} testId="agent-usage-model" />)}
      {own.models.length === 1 && <p className="text-zinc-500">model {own.models[0].model}</p>}
      <Totals label="This run (all agent nodes)" u={usage.data} currency={currency} testId="agent-usage-instance" />
      {own.turns.length > 0 && (
        <ol className="mt-1 space-y-0.5">
          {own.turns.map((t, i) => (
            <li key={t.turnId} data-testid="agent-usage-turn" className="flex items-baseline justify-between gap-2 text-zinc-400">
              <span>
                Turn {i + 1} · {t.estimated && "~"}
                {n(t.inputTokens)} in · {t.estimated && "~"}
                {n(t.outputTokens)} out{t.estimated && " (estimated)"} · {t.stopReason ?? "running"}
              </span>
              <Link
                data-testid="agent-trace-link"
                href={runTurnTraceHref(instanceId, node, t.turnId)}
                className="shrink-0 text-indigo-300 hover:underline"
              >
                Trace →
              </Link>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/**
 * The run's token total and cost, for the instance summary: asked only of a graph with agent nodes,
 * under the same key as the node detail's (one request for both).
 */
export function RunUsage({ instanceId, version }: { instanceId: string; version: number | undefined }) {
  const client = useModexClient();
  const usage = useQuery({
    queryKey: ["instances", "get", instanceId, version, "usage"],
    queryFn: () => client.agentRuns.usage.query({ instanceId, version }),
  });
  if (!usage.data) return <span className="text-zinc-500">…</span>;
  const u = usage.data;
  if (u.calls === 0) return <span className="text-zinc-500">no model calls yet</span>;
  const cost = formatCost(u.cost, u.currency);
  return (
    <span data-testid="instance-usage" className="tabular-nums">
      {u.estimated && "~"}
      {n(u.inputTokens + u.outputTokens)} tokens{u.estimated && " (includes estimates)"} · {u.calls} call{u.calls === 1 ? "" : "s"}
      {cost && <span className="ml-1 text-emerald-300">· {u.estimated ? `~${cost}` : cost}</span>}
    </span>
  );
}
