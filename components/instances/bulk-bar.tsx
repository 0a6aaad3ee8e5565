"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { InstanceBulkFilter, InstanceBulkResult } from "@/components/api/contract";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { bulkSummary, type BulkTone } from "@/components/instances/bulk-summary";
import type { InstanceSelection } from "@/components/instances/use-instance-selection";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

type Action = InstanceBulkResult["action"];

const TONE: Record<BulkTone, string> = {
  ok: "border-emerald-500/30 text-emerald-200",
  partly: "border-amber-500/40 text-amber-200",
  failed: "border-rose-500/40 text-rose-200",
};
const BAR = "sticky bottom-4 z-20 mx-auto mt-4 flex w-fit max-w-full flex-wrap items-center gap-2 rounded-xl border bg-zinc-900/95 px-4 py-2 text-sm shadow-2xl backdrop-blur";

const runs = (n: number) => `${n.toLocaleString()} ${n === 1 ? "run" : "runs"}`;

/**
 * The Instances list's bulk actions on its selection: archive (or unarchive, on the archived list) and
 * delete, which asks first. With every match selected the action sends the list's filter, so it reaches
 * runs not loaded yet. Afterwards the selection clears, the list refreshes and the bar says what was
 * done and which runs were left (the server never deletes a running run).
 */
export function BulkBar({ selection, filter, total, archivedList, onDone }: { selection: InstanceSelection; filter: InstanceBulkFilter; total: number; archivedList: boolean; onDone: () => void }) {
  const client = useModexClient();
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; tone: BulkTone } | null>(null);
  const act = useMutation({
    mutationFn: (action: Action) => client.instances.bulk.mutate(selection.allMatching ? { action, filter } : { action, ids: selection.ids }),
    onSuccess: (result) => {
      setOutcome(bulkSummary(result));
      setConfirming(false);
      selection.clear();
      onDone();
    },
  });
  const run = (action: Action) => {
    setOutcome(null);
    act.reset();
    act.mutate(action);
  };
  const failed = act.isError ? errorMessage(act.error) : null;

  if (selection.count === 0) {
    if (!outcome) return null;
    return (
      <div role="status" data-testid="bulk-outcome" className={`${BAR} ${TONE[outcome.tone]}`}>
        <span>{outcome.text}</span>
        <button type="button" aria-label="Dismiss" onClick={() => setOutcome(null)} className="rounded p-1 text-zinc-400 hover:bg-white/5 hover:text-white">
          ✕
        </button>
      </div>
    );
  }
  const offerAll = !selection.allMatching && selection.listed === "all" && total > selection.ids.length;
  return (
    <>
      <div role="region" aria-label="Selected runs" data-testid="bulk-bar" className={`${BAR} border-white/15`}>
        <span data-testid="bulk-count" className="font-semibold tabular-nums text-zinc-100">
          {selection.allMatching ? `All ${runs(selection.count)} matching selected` : `${selection.count.toLocaleString()} selected`}
        </span>
        {offerAll && (
          <button type="button" onClick={selection.selectAllMatching} className="rounded px-1 text-indigo-300 hover:text-indigo-200 hover:underline">
            Select all {total.toLocaleString()} matching
          </button>
        )}
        <span className="mx-1 h-4 w-px bg-white/10" aria-hidden />
        {archivedList ? (
          <Button size="sm" disabled={act.isPending} onClick={() => run("unarchive")} title="Show them in the list again">
            Unarchive
          </Button>
        ) : (
          <Button size="sm" disabled={act.isPending} onClick={() => run("archive")} title="Hide them from the list (findable under Archived)">
            Archive
          </Button>
        )}
        <Button
          size="sm"
          variant="danger"
          disabled={act.isPending}
          onClick={() => {
            act.reset();
            setConfirming(true);
          }}
        >
          Delete…
        </Button>
        <Button size="sm" variant="ghost" onClick={selection.clear}>
          Clear
        </Button>
        {failed && !confirming && (
          <span role="alert" className="text-xs text-rose-300">
            {failed}
          </span>
        )}
      </div>
      {/* Beside the bar, not in it: the dialog must take clicks whatever the bar's wrapping does. */}
      {confirming && (
        <ConfirmDialog
          open
          title={`Delete ${runs(selection.count)}?`}
          confirmLabel="Delete"
          busy={act.isPending}
          error={failed}
          onConfirm={() => run("delete")}
          onClose={() => setConfirming(false)}
        >
          <p>
            {selection.allMatching ? `Every run this filter matches (${runs(selection.count)} now)` : `The ${selection.count === 1 ? "selected run" : `${runs(selection.count)} selected`}`}, every version of
            each, its events, invocations and deliveries are removed. A running run is left as it is.
          </p>
          <p className="font-semibold text-rose-200">This cannot be undone. To only hide runs from the list, archive them instead.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
