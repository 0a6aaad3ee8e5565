"use client";

import type { InstanceDetail } from "@/components/api/contract";
import { preview } from "@/components/instances/run-model";
import type { RunPointDto } from "@/components/instances/use-run-point";

const ENGINE_FIELDS = new Set(["result", "resumeTarget", "resumeWith"]);

/**
 * The typed graph state of the version on screen (e.g. counter-loop's `count`): field, declared type
 * and description, value. Live, the state as the engine last saved it; in replay, the state at the
 * scrubbed point (`point`: what the last node completed by then left, from the run's state snapshots).
 */
export function StatePanel({
  detail,
  replaying,
  point,
  pointLabel,
}: {
  detail: InstanceDetail;
  replaying: boolean;
  /** The state at the replay position (undefined while it loads). */
  point?: RunPointDto;
  /** How the replay position is named ("event 12"). */
  pointLabel?: string;
}) {
  const s = detail.summary;
  const atPoint = replaying && point !== undefined;
  const state = ((atPoint ? point.state : s.state) ?? null) as Record<string, unknown> | null;
  const declared = new Map(s.stateFields.map((f) => [f.name, f]));
  // Declared fields, in their order, then any other a node wrote; not the engine's own bookkeeping
  // (`result` is the summary's Result, `resumeTarget` where a resume goes, `resumeWith` its saved answer).
  const names = [...s.stateFields.map((f) => f.name), ...Object.keys(state ?? {}).filter((k) => !declared.has(k) && !ENGINE_FIELDS.has(k))];
  return (
    <section aria-label="Graph state" data-testid="state-panel" className="border-b border-white/10 px-4 py-3">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">
        State <span className="normal-case tracking-normal text-zinc-600">· v{s.shownVersion}</span>
      </h2>
      {replaying && (
        <p data-testid="state-replay-note" data-event={point?.eventId} className="mt-1 text-[11px] text-amber-300/90">
          {!point
            ? "Loading the state at this point…"
            : `At ${pointLabel ?? `event ${point.eventId}`}: ${point.initial ? "the state the run started with" : `as ${point.asOf?.node ?? "a node"} left it`}.`}
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
