"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { CopyButton } from "@/components/shell/copy-button";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";
import { NotificationForm } from "@/components/triggers/notification-form";
import { NotificationTable } from "@/components/triggers/notification-table";
import type { NotificationWithSecret } from "@/components/triggers/trigger-types";

type Dialogs = { kind: "new" } | { kind: "delete"; id: string; url: string } | null;

/** Outgoing webhooks: what Modex POSTs to when a run completes, fails, stops or waits for a person. */
export function NotificationsSection({ specs }: { specs: string[] }) {
  const client = useModexClient();
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ["triggers", "notifications"], queryFn: () => client.notifications.list.query() });
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [secret, setSecret] = useState<NotificationWithSecret | null>(null);
  const [testing, setTesting] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: (run: () => Promise<unknown>) => run(),
    onSuccess: () => setDialog(null),
    onSettled: () => void queries.invalidateQueries({ queryKey: ["triggers", "notifications"] }),
  });
  const run = (fn: () => Promise<unknown>) => act.mutate(fn);
  const close = () => (setDialog(null), act.reset());
  const test = (id: string) => {
    setTesting(id);
    run(() => client.notifications.test.mutate({ id }).finally(() => setTesting(null)));
  };

  return (
    <section aria-labelledby="notifications-title" className="space-y-3" data-testid="notifications-section">
      <div className="flex items-center justify-between gap-4">
        <div>
          <h2 id="notifications-title" className="text-base font-semibold text-white">Notifications</h2>
          <p className="text-xs text-zinc-500">What goes out: a signed POST to your URL when a run completes, fails, stops or waits for a person.</p>
        </div>
        <Button variant="primary" size="sm" onClick={() => (act.reset(), setDialog({ kind: "new" }))}>
          New notification
        </Button>
      </div>
      {secret && (
        <div role="status" data-testid="notification-secret" className="space-y-1 rounded-lg border border-amber-400/30 bg-amber-400/5 p-3 text-xs text-amber-100">
          <p>
            The signing secret of <strong className="break-all">{secret.url}</strong>: each POST carries X-Modex-Signature: sha256=&lt;hex HMAC-SHA256 of the body with it&gt;. It is shown this once:
          </p>
          <div className="flex items-start gap-2">
            <code className="block min-w-0 flex-1 select-all break-all font-mono text-sm text-white" data-testid="notification-secret-value">
              {secret.secret}
            </code>
            <CopyButton value={secret.secret} label="Copy secret" />
          </div>
          <Button size="sm" variant="ghost" onClick={() => setSecret(null)}>
            Done
          </Button>
        </div>
      )}
      {act.error && !dialog && <p role="alert" className="text-xs text-rose-300">{errorMessage(act.error)}</p>}
      {list.isPending ? (
        <Skeleton className="h-24" />
      ) : list.isError ? (
        <ErrorState title="Could not load the notifications" error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <NotificationTable
          notifications={list.data}
          testing={testing}
          onEnable={(id, enabled) => run(() => client.notifications.setEnabled.mutate({ id, enabled }))}
          onTest={test}
          onDelete={(id) => (act.reset(), setDialog({ kind: "delete", id, url: list.data.find((n) => n.id === id)?.url ?? id }))}
        />
      )}
      <NotificationForm
        open={dialog?.kind === "new"}
        specs={specs}
        busy={act.isPending}
        error={act.error ? errorMessage(act.error) : null}
        onSave={(input) => run(async () => setSecret(await client.notifications.create.mutate(input)))}
        onClose={close}
      />
      <ConfirmDialog
        open={dialog?.kind === "delete"}
        title="Delete notification"
        confirmLabel="Delete"
        busy={act.isPending}
        error={act.error ? errorMessage(act.error) : null}
        onClose={close}
        onConfirm={() => dialog?.kind === "delete" && run(() => client.notifications.remove.mutate({ id: dialog.id }))}
      >
        {dialog?.kind === "delete" ? `Nothing more is sent to ${dialog.url}; its deliveries, sent or pending, are deleted with it.` : ""}
      </ConfirmDialog>
    </section>
  );
}
