"use client";

import { Fragment, useEffect, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * Breakpoints of an instance, in the sidebar: a checkbox per node (the run pauses before a checked
 * node starts, now or in a later run), and — while the run is paused before one — Step (run that node,
 * then pause before the next) and Continue (run on to the end or the next breakpoint).
 */
export function BreakpointsPanel({
  nodes,
  breakpoints,
  heldAt,
  busy,
  queued = null,
  editable,
  onChange,
  onStep,
  onContinue,
}: {
  nodes: readonly string[];
  breakpoints: readonly string[];
  /** The node the paused run holds before, or null. */
  heldAt: string | null;
  busy: boolean;
  /** Why Step and Continue are disabled: a resume was accepted and is queued for a worker (a cluster). */
  queued?: string | null;
  /** False for a finished run: nothing can pause any more. */
  editable: boolean;
  onChange(next: string[]): void;
  onStep(): void;
  onContinue(): void;
}) {
  // Shown at once; the server's answer (the refreshed instance) then confirms or restores it.
  const [shown, setShown] = useState<readonly string[]>(breakpoints);
  const key = breakpoints.join("\n");
  useEffect(() => setShown(key === "" ? [] : key.split("\n")), [key]);
  const toggle = (node: string, on: boolean) => {
    const next = on ? [...shown, node] : shown.filter((n) => n !== node);
    setShown(next);
    onChange(next);
  };
  return (
    <section aria-label="Breakpoints" className="border-b border-white/10 px-4 py-3">
      <h2 className="text-[11px] font-semibold uppercase tracking-wide text-zinc-400">Breakpoints</h2>
      {heldAt && (
        <div role="status" className="mt-2 rounded-lg border border-amber-500/40 bg-amber-500/10 px-3 py-2 text-xs text-amber-100">
          Paused before <span className="font-mono font-semibold">{heldAt}</span>
          <div className="mt-2 flex gap-2">
            <Button size="sm" variant="primary" disabled={busy || !!queued} onClick={onStep} title={queued ?? "Run this node only, then pause before the next"}>
              Step
            </Button>
            <Button size="sm" disabled={busy || !!queued} onClick={onContinue} title={queued ?? "Run on to the end or the next breakpoint"}>
              Continue
            </Button>
          </div>
        </div>
      )}
      {/* A big graph's list scrolls (about 8 rows shown): its 40 nodes pushed the run's summary off the sidebar. */}
      <ul data-testid="breakpoint-list" className="mt-2 grid max-h-44 grid-cols-2 gap-x-3 gap-y-1 overflow-y-auto">
        {nodes.map((node) => (
          <li key={node} className="min-w-0">
            {/* A long name wraps rather than being cut: after its _ . - where it can, anywhere if it must. */}
            <label className="flex items-start gap-2 text-xs text-zinc-300">
              <input
                type="checkbox"
                className="mt-0.5 shrink-0 accent-amber-400"
                checked={shown.includes(node)}
                disabled={busy || !editable}
                onChange={(e) => toggle(node, e.target.checked)}
                aria-label={`Pause before ${node}`}
              />
              <span data-testid="breakpoint-node" className="min-w-0 font-mono wrap-anywhere" title={node}>
                {node.split(/(?<=[_.-])/).map((part, i) => (
                  <Fragment key={i}>
                    {i > 0 && <wbr />}
                    {part}
                  </Fragment>
                ))}
              </span>
            </label>
          </li>
        ))}
      </ul>
      {!editable && <p className="mt-1 text-[11px] text-zinc-500">The run has finished.</p>}
    </section>
  );
}
