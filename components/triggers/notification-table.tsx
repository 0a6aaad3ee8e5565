"use client";

import { Fragment, useState } from "react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { TableFrame, TableHead, Th } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { NotificationDeliveries } from "@/components/triggers/notification-deliveries";
import type { NotificationItem } from "@/components/triggers/trigger-types";

export interface NotificationActions {
  onEnable: (id: string, enabled: boolean) => void;
  onTest: (id: string) => void;
  onDelete: (id: string) => void;
}

/** One row per notification: where it posts, for which states and graph; its deliveries open beneath it. */
export function NotificationTable({ notifications, testing, ...actions }: { notifications: NotificationItem[]; testing: string | null } & NotificationActions) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) => setOpen((now) => (now.has(id) ? new Set([...now].filter((x) => x !== id)) : new Set([...now, id])));
  if (notifications.length === 0) {
    return <EmptyState title="No notifications">A notification POSTs to your URL when a run completes, fails, stops or waits for a person.</EmptyState>;
  }
  return (
    <TableFrame>
      <TableHead>
        <Th tight>URL</Th>
        <Th tight>When a run</Th>
        <Th tight>Graph</Th>
        <Th tight>State</Th>
        <Th tight label="Actions" />
      </TableHead>
      <tbody className="divide-y divide-white/5 text-xs text-zinc-200">
        {notifications.map((n) => (
          <Fragment key={n.id}>
            <tr data-testid="notification-row" data-id={n.id}>
              <td className="w-2/5 max-w-0 px-3 py-2.5">
                <code className="block truncate font-mono text-zinc-100" title={n.url}>{n.url}</code>
                <span className="block truncate font-mono text-zinc-500">{n.id}</span>
              </td>
              <td className="px-3 py-2.5">{n.events.join(", ")}</td>
              <td className="px-3 py-2.5">
                {n.graph ? (
                  <Link href={`/graphs/${encodeURIComponent(n.graph)}`} className="font-medium text-zinc-100 hover:text-indigo-300">
                    {n.graph}
                  </Link>
                ) : (
                  <span className="text-zinc-500">every graph</span>
                )}
              </td>
              <td className="px-3 py-2.5">{n.enabled ? <span className="text-emerald-300">enabled</span> : <span className="text-zinc-500">disabled</span>}</td>
              <td className="space-x-1 whitespace-nowrap px-3 py-2.5 text-right">
                <Button size="sm" aria-expanded={open.has(n.id)} onClick={() => toggle(n.id)}>
                  Deliveries
                </Button>
                <Button size="sm" disabled={testing === n.id} onClick={() => (actions.onTest(n.id), setOpen((now) => new Set([...now, n.id])))}>
                  {testing === n.id ? "Sending…" : "Send test"}
                </Button>
                <Button size="sm" onClick={() => actions.onEnable(n.id, !n.enabled)}>
                  {n.enabled ? "Disable" : "Enable"}
                </Button>
                <Button size="sm" variant="danger" onClick={() => actions.onDelete(n.id)}>
                  Delete
                </Button>
              </td>
            </tr>
            {open.has(n.id) && (
              <tr>
                <td colSpan={5} className="bg-white/[0.015] px-3 py-2">
                  <NotificationDeliveries id={n.id} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </TableFrame>
  );
}
