import type { RouterOutputs } from "@/server/api/root";
import { InvocationModeBadge } from "@/components/extensions/invocation-mode-badge";

type Groups = RouterOutputs["extensions"]["list"]["extensions"][number]["groups"];

/**
 * The points one extension implements, folded to a count and its groups' names; opened, each group with
 * its points and their modes (as the server's catalogue gives them).
 */
export function ExtensionPointsDisclosure({ name, groups }: { name: string; groups: Groups }) {
  const count = groups.reduce((n, g) => n + g.points.length, 0);
  if (count === 0) return <span className="text-xs text-zinc-500">no points</span>;
  return (
    <details data-testid="extension-points" className="group max-w-md">
      <summary aria-label={`${name}: ${count} points`} className="cursor-pointer select-none text-xs text-zinc-300 marker:text-zinc-500 hover:text-white">
        {count} {count === 1 ? "point" : "points"} in {groups.length} {groups.length === 1 ? "group" : "groups"}
        <span className="block pl-3.5 text-[11px] text-zinc-500 group-open:hidden">{groups.map((g) => g.label).join(" · ")}</span>
      </summary>
      <dl className="mt-2 space-y-2">
        {groups.map((g) => (
          <div key={g.group} data-testid="extension-point-group" data-group={g.group}>
            <dt className="text-[11px] font-semibold uppercase tracking-wide text-zinc-500">{g.label}</dt>
            {g.points.map((p) => (
              <dd key={p.point} className="mt-1 flex flex-wrap items-center gap-1.5">
                <span className="font-mono text-[11px] text-zinc-200">{p.point}</span>
                <InvocationModeBadge mode={p.mode} transformKey={p.transformKey} />
              </dd>
            ))}
          </div>
        ))}
      </dl>
    </details>
  );
}
