"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import type { SpanRecord } from "@/server/agent/trace/span-record";

/** The root span's tags (server/agent/trace/genai-attributes.ts `Training`), read as the Traces list reads them. */
const RELEVANT = "gen_ai.training.relevant";
const CHOSEN = "modex.training.chosen";

/**
 * "Training data: included / excluded" for one turn: the training_data hook's tag until a person flips it;
 * the choice is kept on the turn's root span (SQLite or PostgreSQL) and is what the JSONL export follows.
 */
export function TrainingToggle({ root, queryKey }: { root: SpanRecord; queryKey: readonly unknown[] }) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const included = root.attributes[RELEVANT] === true;
  const chosen = root.attributes[CHOSEN] === true;
  const choose = useMutation({
    mutationFn: (next: boolean) => client.traces.chooseTraining.mutate({ spanId: root.spanId, included: next }),
    onSuccess: () => void Promise.all([queryClient.invalidateQueries({ queryKey }), queryClient.invalidateQueries({ queryKey: ["traces"] })]),
  });
  const shown = choose.isPending ? choose.variables : included;
  const why = chosen ? "your choice" : root.attributes[RELEVANT] === undefined ? "not tagged" : "tagged by the training_data hook";
  return (
    <div data-testid="trace-training" className="mb-4 flex flex-wrap items-center gap-2 text-xs">
      <button
        type="button"
        aria-pressed={shown}
        disabled={choose.isPending}
        onClick={() => choose.mutate(!included)}
        title={shown ? "In the training-data export (Export JSONL on the Traces page). Click to exclude it." : "Not in the training-data export. Click to include it."}
        className={`rounded-full border px-3 py-1 font-medium ${shown ? "border-emerald-400/40 bg-emerald-500/10 text-emerald-300" : "border-white/15 text-zinc-300"} hover:bg-white/5 disabled:opacity-60`}
      >
        Training data: {shown ? "included" : "excluded"}
      </button>
      <span className="text-zinc-500">{why}</span>
      {choose.isError && <span className="text-rose-300">Not saved: {errorMessage(choose.error)}</span>}
    </div>
  );
}
