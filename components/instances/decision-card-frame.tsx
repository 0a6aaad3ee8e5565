import type { ReactNode } from "react";

/** `decided` and `answered` look alike: done. `queued` (a cluster): sent, no worker has started the run. */
export type DecisionCardState = "waiting" | "queued" | "decided" | "answered";

const LOOK: Record<DecisionCardState, { section: string; title: string }> = {
  waiting: { section: "border-amber-400/20 bg-amber-400/[0.05]", title: "text-amber-300" },
  queued: { section: "border-white/10 bg-amber-400/[0.04]", title: "text-amber-300/90" },
  decided: { section: "border-white/10 bg-emerald-400/[0.04]", title: "text-emerald-300/80" },
  answered: { section: "border-white/10 bg-emerald-400/[0.04]", title: "text-emerald-300/80" },
};

/**
 * The frame of a card where a run waits on a person (an agent's approval, a human-input node): a tinted
 * section across the sidebar with its state in `data-state`, a heading (pulsing while it waits), and
 * while queued the note saying why nothing happens yet. The card's own content is `children`.
 */
export function DecisionCardFrame({
  label,
  testId,
  state,
  title,
  queuedNote,
  children,
}: {
  /** The section's accessible name. */
  label: string;
  testId: string;
  state: DecisionCardState;
  title: ReactNode;
  /** Shown only while queued. */
  queuedNote?: string;
  children: ReactNode;
}) {
  const look = LOOK[state];
  return (
    <section aria-label={label} data-testid={testId} data-state={state} className={`border-b px-4 py-3 ${look.section}`}>
      <h2 className={`flex items-center gap-2 text-xs font-semibold uppercase tracking-wide ${look.title}`}>
        {state === "waiting" && <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-amber-400" aria-hidden="true" />}
        {title}
      </h2>
      {state === "queued" && queuedNote && (
        <p data-testid="queued-note" className="mt-1.5 text-xs text-amber-200/90">
          {queuedNote}
        </p>
      )}
      {children}
    </section>
  );
}
