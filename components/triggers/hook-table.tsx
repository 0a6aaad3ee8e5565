import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { timestamp } from "@/components/ui/format-time";
import type { HookItem } from "@/components/triggers/trigger-types";
import { LocalTime } from "@/components/ui/local-time";

/** One row per webhook: its URL, spec, credential kind and limits; rotate or delete it. */
export function HookTable({ hooks, onRotate, onDelete }: { hooks: HookItem[]; onRotate: (name: string) => void; onDelete: (name: string) => void }) {
  if (hooks.length === 0) return <EmptyState title="No webhooks">A webhook starts a run of its spec with the JSON body of a POST as input.</EmptyState>;
  return (
    <table className="w-full text-left text-xs">
      <thead className="text-zinc-500">
        <tr>
          <th className="py-2 font-medium">Webhook</th>
          <th className="font-medium">Spec</th>
          <th className="font-medium">Credential</th>
          <th className="font-medium">Limits</th>
          <th className="font-medium">Secret from</th>
          <th />
        </tr>
      </thead>
      <tbody className="divide-y divide-white/5 text-zinc-200">
        {hooks.map((h) => (
          <tr key={h.name} data-testid="hook-row" data-name={h.name}>
            <td className="py-2 pr-3">
              <span className="font-semibold">{h.name}</span>
              <code className="block font-mono text-zinc-500">POST {h.path}</code>
            </td>
            <td className="pr-3">{h.spec}</td>
            <td className="pr-3">{h.auth === "hmac" ? "HMAC-SHA256 signature" : "bearer token"}</td>
            <td className="pr-3">
              {Math.round(h.maxBodyBytes / 1024)} KiB · {h.ratePerMinute}/min
            </td>
            <td className="pr-3">
              <LocalTime at={h.rotatedAt} format="ago" title={timestamp(h.rotatedAt)} />
            </td>
            <td className="space-x-1 whitespace-nowrap text-right">
              <Button size="sm" onClick={() => onRotate(h.name)}>
                Rotate secret
              </Button>
              <Button size="sm" variant="danger" onClick={() => onDelete(h.name)}>
                Delete
              </Button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
