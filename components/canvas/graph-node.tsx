"use client";

import type { NodeProps } from "@xyflow/react";
import type { GraphFlowNode } from "@/components/canvas/flow-types";
import { Port, portSides } from "@/components/canvas/port";
import { nodeCard, stateText } from "@/shared/canvas/node-card";
import { NODE_STATE_LOOK } from "@/components/canvas/node-state";

const TYPE_ACCENT: Record<string, string> = {
  function: "text-sky-300",
  delay: "text-violet-300",
  human_input: "text-amber-300",
  subgraph: "text-fuchsia-300",
  fan_out: "text-teal-300",
  join: "text-teal-300",
};

/**
 * A declared node: its name, node type, join marker and (on a run's canvas) its state. The card's size
 * is the one the layout gave it (node-card.ts: from the name, wrapped onto more lines when long, and a
 * state line on a run's canvas), so nothing in it is cut. It is not positioned: the ports and the join
 * badge are placed against React Flow's node wrapper (port.tsx).
 */
export function GraphNode({ data, selected }: NodeProps<GraphFlowNode>) {
  const { topo, state, caption, highlighted } = data;
  const card = data.card ?? nodeCard(topo.id, false);
  const look = state ? NODE_STATE_LOOK[state] : undefined;
  const ring = highlighted ? "ring-2 ring-indigo-300" : selected ? "ring-2 ring-indigo-400/60" : "";
  const ports = portSides(data.vertical);
  const status = card.stateLine ? stateText(state, caption) : null;
  const name = card.nameLines.join("");
  const tooltip = [name === topo.id ? null : topo.id, topo.description ?? (name === topo.id ? topo.id : null), status].filter(Boolean).join("\n");
  return (
    <div
      data-testid="canvas-node"
      data-node={topo.id}
      data-state={state}
      title={tooltip}
      style={{ width: card.width, height: card.height }}
      className={`group flex flex-col justify-center rounded-lg border bg-zinc-900 px-3 text-left shadow-lg shadow-black/30 transition-[border-color,box-shadow] ${
        look?.border ?? "border-white/15 hover:border-white/30"
      } ${ring}`}
    >
      <Port side={ports.into} className="bg-zinc-600" />
      <div className="flex items-start gap-2">
        {card.stateLine && <span className={`mt-[5px] h-2 w-2 shrink-0 rounded-full ${(look ?? NODE_STATE_LOOK.pending).dot}`} aria-hidden="true" />}
        <span data-testid="node-name" className="min-w-0 text-[13px] font-semibold leading-[18px] text-zinc-100">
          {card.nameLines.map((line, i) => (
            <span key={i} className="block overflow-hidden whitespace-nowrap">
              {line}
            </span>
          ))}
        </span>
      </div>
      <div className="mt-0.5 flex items-center gap-1.5 text-[11px] leading-4">
        <span className={`truncate font-mono ${TYPE_ACCENT[topo.nodeType] ?? "text-zinc-400"}`}>{topo.nodeType || "—"}</span>
        {!card.stateLine && caption && <span className="truncate text-zinc-500">· {caption}</span>}
      </div>
      {status !== null && (
        <div data-testid="node-state" className={`truncate text-[11px] leading-4 ${look?.text ?? "text-zinc-500"}`}>
          {status}
        </div>
      )}
      {topo.isJoin && (
        <span
          data-testid="join-badge"
          title="Join: waits for every active predecessor (ON_ALL_PREDS)"
          className="absolute left-[9px] top-[-7px] rounded-full border border-teal-400/40 bg-zinc-950 px-1.5 text-[9px] font-semibold uppercase tracking-wider text-teal-300"
        >
          join
        </span>
      )}
      <Port side={ports.out} className="bg-zinc-600" />
    </div>
  );
}
