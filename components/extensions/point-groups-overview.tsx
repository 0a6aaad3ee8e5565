import type { RouterOutputs } from "@/server/api/root";
import { InvocationModeBadge } from "@/components/extensions/invocation-mode-badge";

type PointGroups = RouterOutputs["extensions"]["list"]["pointGroups"];

/**
 * All 25 points under the spec's group names, each with its mode and how many enabled extensions listen
 * there (their names in the tooltip): where the app can be changed, and where something already does.
 */
export function PointGroupsOverview({ groups }: { groups: PointGroups }) {
  return (
    <section data-testid="point-groups" aria-labelledby="point-groups-title" className="mt-10">
      <h2 id="point-groups-title" className="text-lg font-semibold text-white">
        Points by group
      </h2>
      <p className="mt-1 text-sm text-zinc-400">
        Where an extension can take part in a turn, with how each point combines results and how many enabled extensions listen there. README
        &ldquo;Extensions&rdquo; says when each fires.
      </p>
      <div className="mt-4 grid gap-3 md:grid-cols-2 lg:grid-cols-3">
        {groups.map((g) => (
          <div key={g.group} data-testid="point-group" data-group={g.group} className="rounded-xl border border-white/10 px-4 py-3">
            <div className="flex items-baseline justify-between gap-2">
              <h3 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">{g.label}</h3>
              <span className="text-[10px] text-zinc-600">listening</span>
            </div>
            <ul className="mt-2 space-y-1.5">
              {g.points.map((p) => (
                <li key={p.point} data-testid="point-row" data-point={p.point} className="flex items-center gap-2">
                  <span className="min-w-0 flex-1 truncate font-mono text-[11px] text-zinc-200" title={p.point}>
                    {p.point}
                  </span>
                  <InvocationModeBadge mode={p.mode} />
                  <span
                    data-testid="point-listeners"
                    title={p.listeners.length > 0 ? `listening: ${p.listeners.join(", ")}` : "no enabled extension listens here"}
                    aria-label={`${p.listeners.length} enabled ${p.listeners.length === 1 ? "extension" : "extensions"}`}
                    className={`w-6 text-right text-xs tabular-nums ${p.listeners.length > 0 ? "font-semibold text-zinc-100" : "text-zinc-600"}`}
                  >
                    {p.listeners.length}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
}
