import Link from "next/link";
import { runTurnTraceHref } from "@/components/traces/run-turn-trace-href";

/** "Trace →": one agent turn's waterfall (its model calls and tool calls), from the run page. */
export function TurnTraceLink({ instanceId, node, turnId, label = "Trace →" }: { instanceId: string; node: string; turnId: string; label?: string }) {
  return (
    <Link
      href={runTurnTraceHref(instanceId, node, turnId)}
      data-testid="turn-trace-link"
      data-node={node}
      data-turn={turnId}
      className="shrink-0 text-[11px] text-indigo-300 hover:underline"
    >
      {label}
    </Link>
  );
}
