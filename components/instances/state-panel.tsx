"use client";

import type { InstanceDetail } from "@/components/api/contract";
import { preview } from "@/components/instances/run-model";

const ENGINE_FIELDS = new Set(["result", "resumeTarget"]);

/**
 * The typed graph state of the version on screen (e.g. counter-loop's `count`), as the engine last
 * saved it: field, declared type and description, value. The state is saved per version (after each
 * node), not per event: in replay the panel shows the version's saved state, and says so.
 */
export function StatePanel({ detail, replaying }: { detail: InstanceDetail; replaying: boolean }) {
  const s = detail.summary;
  const state = (s.state ?? null) as Record<string, unknown> | null;
  const declared = new Map(s.stateFields.map((f) => [f.name, f]));
  // Declared fields, in their order, then any other a node wrote; not the engine's own bookkeeping
  // (`result` is the summary's Result, `resumeTarget` where a resume goes).
  const names = [...s.stateFields.map((f) => f.name), ...Object.keys(state ?? {}).filter((k) => !declared.has(k) && !ENGINE_FIELDS.has(k))];
  return (
    <section aria-label="Graph state" data-testid="state-panel" className="border-b border-white/10 px-4 py-3">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">
        State <span className="normal-case tracking-normal text-zinc-600">· v{s.shownVersion}</span>
      </h2>
      {replaying && (
        <p data-testid="state-replay-note" className="mt-1 text-[11px] text-amber-300/90">
          As saved at the end of v{s.shownVersion}: the state is saved per version, not per event.
        </p>
      )}
      {names.length === 0 ? (
        <p className="mt-2 text-xs text-zinc-500">This graph declares no state.</p>
      ) : (
        <dl className="mt-2 space-y-1 text-xs">
          {names.map((name) => {
            const field = declared.get(name);
            const has = state !== null && name in state;
            return (
              <div key={name} data-testid="state-field" data-field={name} className="flex gap-3" title={field?.description ?? undefined}>
                <dt className="w-28 shrink-0 truncate font-mono text-zinc-400">
                  {name}
                  {field && <span className="ml-1 text-zinc-600">{field.type}</span>}
                </dt>
                <dd className="min-w-0 flex-1 break-words font-mono text-zinc-100">{has ? preview(state[name], 300) : <span className="text-zinc-500">not set yet</span>}</dd>
              </div>
            );
          })}
        </dl>
      )}
    </section>
  );
}
