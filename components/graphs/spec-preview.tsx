"use client";

import { useEffect, useMemo } from "react";
import { type LayoutJson, warmLayoutEngine } from "@/shared/canvas/elk-layout";
import { TopologyCanvas } from "@/components/canvas/topology-canvas";
import { inRows, type Topology } from "@/shared/canvas/topology";
import type { YamlProblem } from "@/components/graphs/yaml-topology";

// Loading ELK into its worker takes the best part of a second of a core. A saved spec's first layout
// comes from the server (`initialLayout`), so ELK is needed only once an edit changes the graph: it is
// loaded once the page has settled (Monaco loading competes for the same cores), or at once for a new,
// unsaved spec, which has no server layout.
let warmed = false;
function warmSoon(now: boolean): void {
  if (warmed || typeof Worker === "undefined") return;
  warmed = true;
  if (now) return warmLayoutEngine();
  const idle = (window as Window & { requestIdleCallback?: (cb: () => void, o?: { timeout: number }) => number }).requestIdleCallback;
  setTimeout(() => (idle ? idle(() => warmLayoutEngine(), { timeout: 2000 }) : warmLayoutEngine()), 1500);
}

/**
 * The least zoom the preview is fitted at: a node's name (13 px) is then 11 px or larger on screen,
 * its type line (11 px) 9.4 px. Down to 0.6, a fan-out fitted whole into a 1024 px window's preview had
 * 9 px names and 7.5 px types, unreadable. The layout keeps that rare: a chain wraps in rows and a
 * fan-out is laid out top to bottom (elk-layout.ts), so every example fits whole at 1024 px and wider.
 * A graph larger still opens readable from START and pans (the pan hint says so); the fit button shows
 * it whole at any zoom.
 */
const PREVIEW_MIN_FIT_ZOOM = 0.85;

/**
 * The live topology preview: the last graph the YAML described, and why the current text does not.
 * The problem is said in a strip above the canvas, in the legend's place, never over the graph (a
 * banner over the canvas hid a tall graph's top nodes). The strip keeps one height, so the graph does
 * not move while the user types through a momentarily broken line.
 */
export interface SpecPreviewProps {
  topology: Topology | null;
  problem: YamlProblem | null;
  onNodeClick(id: string): void;
  initialLayout?: LayoutJson | null;
  /** Bumped when the user moves the split beside the preview: the graph is fitted again. */
  layoutChanges?: { readonly current: number };
}

export function SpecPreview({ topology, problem, onNodeClick, initialLayout, layoutChanges }: SpecPreviewProps) {
  useEffect(() => warmSoon(!initialLayout), [initialLayout]);
  // One object per topology: a new one would lay the graph out again.
  const rows = useMemo(() => (topology ? inRows(topology) : null), [topology]);
  const overlay = !topology && !problem && (
    <p className="absolute inset-0 flex items-center justify-center text-sm text-zinc-500">Add nodes and edges to see the graph.</p>
  );
  return (
    <div className="flex h-full flex-col">
      <div className="flex h-9 shrink-0 items-center border-b border-white/10 px-3 text-[11px]">
        {problem ? <ProblemLine problem={problem} stale={!!topology} /> : <Legend />}
      </div>
      <div className="relative min-h-0 flex-1">
        <TopologyCanvas topology={rows} onNodeClick={onNodeClick} overlay={overlay} testId="spec-preview" fitMinZoom={PREVIEW_MIN_FIT_ZOOM} initialLayout={initialLayout} layoutChanges={layoutChanges} />
      </div>
    </div>
  );
}

/** Why the text does not describe a graph, on one line (the whole message in its tooltip and in the editor's marker). */
function ProblemLine({ problem, stale }: { problem: YamlProblem; stale: boolean }) {
  const whole = `Line ${problem.line}: ${problem.message}`;
  return (
    <div role="alert" data-testid="preview-problem" title={whole} className="flex min-w-0 flex-1 items-center gap-2">
      <span aria-hidden="true" className="h-1.5 w-1.5 shrink-0 rounded-full bg-amber-300" />
      <span className="min-w-0 truncate">
        <span className="font-semibold text-amber-200">Line {problem.line}:</span> <span className="text-zinc-200">{problem.message}</span>
      </span>
      {stale && <span className="ml-auto shrink-0 whitespace-nowrap text-zinc-500">showing the last valid graph</span>}
    </div>
  );
}

function Legend() {
  return (
    <div className="flex min-w-0 items-center gap-3 overflow-hidden whitespace-nowrap text-zinc-400">
      <span className="flex items-center gap-1"><span className="h-2 w-4 rounded-full border border-emerald-400/60 bg-emerald-400/10" /> start</span>
      <span className="flex items-center gap-1"><span className="h-2 w-4 rounded-full border border-zinc-300/50 bg-zinc-100/10" /> end</span>
      <span className="flex items-center gap-1"><span className="rounded-full border border-teal-400/40 px-1 text-[8px] font-semibold uppercase text-teal-300">join</span> waits for all</span>
      <span className="flex items-center gap-1"><svg width="18" height="6" aria-hidden="true"><line x1="0" y1="3" x2="18" y2="3" stroke="#a78bfa" strokeWidth="1.5" strokeDasharray="4 3" /></svg> loop</span>
      <span className="truncate text-zinc-500">Click a node to find it in the YAML</span>
    </div>
  );
}
