import Link from "next/link";
import { Button } from "@/components/ui/button";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";
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
    <TableFrame>
      <TableHead>
        <Th tight>Schedule</Th>
        <Th tight>Graph</Th>
        <Th tight>When</Th>
        <Th tight>Next fires</Th>
        <Th tight>Last fire</Th>
        <Th tight label="Actions" />
      </TableHead>
      <tbody className="divide-y divide-white/5 text-xs text-zinc-200">
        {schedules.map((s) => (
          <tr key={s.name} data-testid="schedule-row" data-name={s.name} className="align-top">
            <td className="px-3 py-2.5">
              <span className="font-semibold">{s.name}</span>
              <span className="block text-zinc-500">{s.declaredIn ? `declared in ${s.declaredIn}` : "made in the app"}</span>
            </td>
            <td className="px-3 py-2.5">
              <Link href={`/graphs/${encodeURIComponent(s.spec)}`} data-testid="trigger-graph" className="font-medium text-zinc-100 hover:text-indigo-300">
                {s.spec}
              </Link>
            </td>
            <td className="px-3 py-2.5">
              <code className="font-mono">{s.cron}</code> <span className="text-zinc-500">{s.timezone}</span>
              <span className="block text-zinc-500">
                {POLICY[s.overlap]} · missed: {s.missed === "run_once" ? "run once" : "skip"}
              </span>
            </td>
            <td className="px-3 py-2.5" data-testid="next-fires">
              {s.paused ? (
                <span className="text-amber-300">paused</span>
              ) : (
                s.nextFires.slice(0, 3).map((t) => (
                  <LocalTime key={t} at={t} className="block font-mono" />
                ))
              )}
            </td>
            <td className="px-3 py-2.5">
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
            <td className="space-x-1 whitespace-nowrap px-3 py-2.5 text-right">
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
    </TableFrame>
  );
}
