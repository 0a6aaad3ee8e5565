import Link from "next/link";
import { Button } from "@/components/ui/button";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { timestamp } from "@/components/ui/format-time";
import type { HookItem } from "@/components/triggers/trigger-types";
import { LocalTime } from "@/components/ui/local-time";

/** One row per webhook: its URL, spec, credential kind and limits; rotate or delete it. */
export function HookTable({ hooks, onRotate, onDelete }: { hooks: HookItem[]; onRotate: (name: string) => void; onDelete: (name: string) => void }) {
  if (hooks.length === 0) return <EmptyState title="No webhooks">A webhook starts a run of its spec with the JSON body of a POST as input.</EmptyState>;
  return (
    <TableFrame>
      <TableHead>
        <Th tight>Webhook</Th>
        <Th tight>Graph</Th>
        <Th tight>Credential</Th>
        <Th tight>Limits</Th>
        <Th tight>Secret from</Th>
        <Th tight label="Actions" />
      </TableHead>
      <tbody className="divide-y divide-white/5 text-xs text-zinc-200">
        {hooks.map((h) => (
          <tr key={h.name} data-testid="hook-row" data-name={h.name}>
            <td className="px-3 py-2.5">
              <span className="font-semibold">{h.name}</span>
              <code className="block font-mono text-zinc-500">POST {h.path}</code>
            </td>
            <td className="px-3 py-2.5">
              <Link href={`/graphs/${encodeURIComponent(h.spec)}`} data-testid="trigger-graph" className="font-medium text-zinc-100 hover:text-indigo-300">
                {h.spec}
              </Link>
            </td>
            <td className="px-3 py-2.5">{h.auth === "hmac" ? "HMAC-SHA256 signature" : "bearer token"}</td>
            <td className="px-3 py-2.5">
              {Math.round(h.maxBodyBytes / 1024)} KiB · {h.ratePerMinute}/min
            </td>
            <td className="px-3 py-2.5">
              <LocalTime at={h.rotatedAt} format="ago" title={timestamp(h.rotatedAt)} />
            </td>
            <td className="space-x-1 whitespace-nowrap px-3 py-2.5 text-right">
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
    </TableFrame>
  );
}
