"use client";

import type { NodeProps } from "@xyflow/react";
import type { GraphFlowNode } from "@/components/canvas/flow-types";
import { Port } from "@/components/canvas/port";
import { NODE_STATE_LABEL, NODE_STATE_LOOK } from "@/components/canvas/node-state";

const TYPE_ACCENT: Record<string, string> = {
  function: "text-sky-300",
  delay: "text-violet-300",
  human_input: "text-amber-300",
  subgraph: "text-fuchsia-300",
  fan_out: "text-teal-300",
  join: "text-teal-300",
};

/**
 * A declared node: its name, node type, join marker and (in a run) its state. The card is not
 * positioned: the ports and the join badge are placed against React Flow's node wrapper (port.tsx).
 */
export function GraphNode({ data, selected }: NodeProps<GraphFlowNode>) {
  const { topo, state, caption, highlighted } = data;
  const look = state ? NODE_STATE_LOOK[state] : undefined;
  const ring = highlighted ? "ring-2 ring-indigo-300" : selected ? "ring-2 ring-indigo-400/60" : "";
  return (
    <div
      data-testid="canvas-node"
      data-node={topo.id}
      data-state={state}
      title={topo.description ?? topo.id}
      className={`group flex h-[52px] w-40 flex-col justify-center rounded-lg border bg-zinc-900 px-3 text-left shadow-lg shadow-black/30 transition-[border-color,box-shadow] ${
        look?.border ?? "border-white/15 hover:border-white/30"
      } ${ring}`}
    >
      <Port side="left" className="bg-zinc-600" />
      <div className="flex items-center gap-2">
        {look && <span className={`h-2 w-2 shrink-0 rounded-full ${look.dot}`} aria-hidden="true" />}
        <span className="truncate text-[13px] font-semibold text-zinc-100">{topo.id}</span>
      </div>
      <div className="mt-0.5 flex items-center gap-1.5 text-[11px]">
        <span className={`font-mono ${TYPE_ACCENT[topo.nodeType] ?? "text-zinc-400"}`}>{topo.nodeType || "—"}</span>
        {state && look ? (
          <span className={`truncate ${look.text}`}>· {caption ?? NODE_STATE_LABEL[state]}</span>
        ) : (
          caption && <span className="truncate text-zinc-500">· {caption}</span>
        )}
      </div>
      {topo.isJoin && (
        <span
          data-testid="join-badge"
          title="Join: waits for every active predecessor (ON_ALL_PREDS)"
          className="absolute left-[9px] top-[-7px] rounded-full border border-teal-400/40 bg-zinc-950 px-1.5 text-[9px] font-semibold uppercase tracking-wider text-teal-300"
        >
          join
        </span>
      )}
      <Port side="right" className="bg-zinc-600" />
    </div>
  );
}
