"use client";

import type { NodeProps } from "@xyflow/react";
import type { GraphFlowNode } from "@/components/canvas/flow-types";
import { Port, portSides } from "@/components/canvas/port";
import { NODE_STATE_LOOK } from "@/components/canvas/node-state";

/** START and END: pills, unlike the declared nodes' cards, so the entry and the exit stand out. */
export function TerminalNode({ data }: NodeProps<GraphFlowNode>) {
  const { topo, state, highlighted } = data;
  const isStart = topo.kind === "start";
  const reached = state === "completed" || state === "running";
  const ports = portSides(data.vertical);
  return (
    <div
      data-testid="canvas-node"
      data-node={topo.id}
      data-state={state}
      className={`flex h-9 w-24 items-center justify-center gap-1.5 rounded-full border text-[11px] font-bold tracking-[0.14em] ${
        isStart ? "border-emerald-400/50 bg-emerald-400/10 text-emerald-200" : "border-zinc-300/40 bg-zinc-100/10 text-zinc-100"
      } ${highlighted ? "ring-2 ring-indigo-300" : ""}`}
    >
      {!isStart && <Port side={ports.into} className="bg-zinc-500" />}
      {state && <span className={`h-1.5 w-1.5 rounded-full ${reached ? NODE_STATE_LOOK.completed.dot : "bg-zinc-600"}`} aria-hidden="true" />}
      {isStart ? "START" : "END"}
      {isStart && <Port side={ports.out} className="bg-zinc-500" />}
    </div>
  );
}
