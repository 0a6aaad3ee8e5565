import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { timestamp } from "@/components/ui/format-time";
import type { ScheduleItem } from "@/components/triggers/trigger-types";
import { LocalTime } from "@/components/ui/local-time";

const POLICY = { skip: "skip while one runs", allow: "allow overlap", cancel_previous: "stop the previous" } as const;

/** One row per schedule: its rule, policies, next fire times (in the viewer's clock) and last fire. */
export function ScheduleTable({
  schedules,
  onPause,
  onResume,
  onDelete,
}: {
  schedules: ScheduleItem[];
  onPause: (name: string) => void;
  onResume: (name: string) => void;
  onDelete: (name: string) => void;
}) {
  if (schedules.length === 0) {
    return <EmptyState title="No schedules">Make one here, or declare <code className="font-mono text-zinc-300">schedules:</code> in a spec (see <code className="whitespace-nowrap font-mono text-zinc-300">docs/spec-format.md</code>).</EmptyState>;
  }
  return (
    <table className="w-full text-left text-xs">
      <thead className="text-zinc-500">
        <tr>
          <th className="py-2 font-medium">Schedule</th>
          <th className="font-medium">Spec</th>
          <th className="font-medium">When</th>
          <th className="font-medium">Next fires</th>
          <th className="font-medium">Last fire</th>
          <th />
        </tr>
      </thead>
      <tbody className="divide-y divide-white/5 text-zinc-200">
        {schedules.map((s) => (
          <tr key={s.name} data-testid="schedule-row" data-name={s.name} className="align-top">
            <td className="py-2 pr-3">
              <span className="font-semibold">{s.name}</span>
              <span className="block text-zinc-500">{s.declaredIn ? `declared in ${s.declaredIn}` : "made in the app"}</span>
            </td>
            <td className="pr-3">{s.spec}</td>
            <td className="pr-3">
              <code className="font-mono">{s.cron}</code> <span className="text-zinc-500">{s.timezone}</span>
              <span className="block text-zinc-500">
                {POLICY[s.overlap]} · missed: {s.missed === "run_once" ? "run once" : "skip"}
              </span>
            </td>
            <td className="pr-3" data-testid="next-fires">
              {s.paused ? (
                <span className="text-amber-300">paused</span>
              ) : (
                s.nextFires.slice(0, 3).map((t) => (
                  <LocalTime key={t} at={t} className="block font-mono" />
                ))
              )}
            </td>
            <td className="pr-3">
              {s.lastFireAt ? (
                <>
                  <LocalTime at={s.lastFireAt} format="ago" title={timestamp(s.lastFireAt)} />
                  <span className="block text-zinc-500">
                    {s.lastOutcome}
                    {s.lastInstanceId && (
                      <>
                        {" · "}
                        <a href={`/instances/${encodeURIComponent(s.lastInstanceId)}`} className="text-indigo-300 hover:text-indigo-200">
                          last run
                        </a>
                      </>
                    )}
                  </span>
                </>
              ) : (
                <span className="text-zinc-500">{s.lastOutcome ?? "not yet"}</span>
              )}
            </td>
            <td className="space-x-1 whitespace-nowrap text-right">
              {s.paused ? (
                <Button size="sm" onClick={() => onResume(s.name)}>
                  Resume
                </Button>
              ) : (
                <Button size="sm" onClick={() => onPause(s.name)}>
                  Pause
                </Button>
              )}
              <Button size="sm" variant="danger" disabled={s.declaredIn !== null} title={s.declaredIn ? `declared in ${s.declaredIn}: remove it there` : undefined} onClick={() => onDelete(s.name)}>
                Delete
              </Button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
