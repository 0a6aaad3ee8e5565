"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { CopyButton } from "@/components/shell/copy-button";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";
import { HookForm } from "@/components/triggers/hook-form";
import { HookTable } from "@/components/triggers/hook-table";
import { NotificationsSection } from "@/components/triggers/notifications-section";
import { ScheduleForm } from "@/components/triggers/schedule-form";
import { ScheduleTable } from "@/components/triggers/schedule-table";
import type { HookWithSecret } from "@/components/triggers/trigger-types";

type Dialogs = { kind: "schedule" } | { kind: "hook" } | { kind: "delete-schedule"; name: string } | { kind: "delete-hook"; name: string } | null;

/** Schedules (with their next fire times) and webhooks: what starts runs without a person pressing Run. */
export function TriggersPage() {
  const client = useModexClient();
  const queries = useQueryClient();
  const schedules = useQuery({ queryKey: ["triggers", "schedules"], queryFn: () => client.triggers.schedules.query(), refetchInterval: 5_000 });
  const hooks = useQuery({ queryKey: ["triggers", "hooks"], queryFn: () => client.triggers.hooks.query() });
  const specs = useQuery({ queryKey: ["specs", "list"], queryFn: () => client.specs.list.query() });
  const [dialog, setDialog] = useState<Dialogs>(null);
  const [secret, setSecret] = useState<HookWithSecret | null>(null);
  const refresh = () => queries.invalidateQueries({ queryKey: ["triggers"] });
  const act = useMutation({
    mutationFn: (run: () => Promise<unknown>) => run(),
    onSuccess: () => {
      setDialog(null);
      void refresh();
    },
  });
  const run = (fn: () => Promise<unknown>) => act.mutate(fn);
  const showSecret = (fn: () => Promise<HookWithSecret>) => run(async () => setSecret(await fn()));
  const specNames = (specs.data ?? []).map((s) => s.name);
  const close = () => (setDialog(null), act.reset());

  return (
    <main data-testid="triggers-page" className="mx-auto max-w-6xl space-y-8 px-6 py-10">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-white">Triggers</h1>
        <p className="mt-1 text-sm text-zinc-400">What starts runs without a person pressing Run: schedules fire a graph on a cron, webhooks start one when something posts to them. Notifications tell other systems how runs end.</p>
      </div>
      <section aria-labelledby="schedules-title" className="space-y-3">
        <div className="flex items-center justify-between">
          <h2 id="schedules-title" className="text-base font-semibold text-white">Schedules</h2>
          <Button variant="primary" size="sm" onClick={() => (act.reset(), setDialog({ kind: "schedule" }))}>
            New schedule
          </Button>
        </div>
        {schedules.isPending ? (
          <Skeleton className="h-24" />
        ) : schedules.isError ? (
          <ErrorState title="Could not load the schedules" error={schedules.error} onRetry={() => void schedules.refetch()} />
        ) : (
          <ScheduleTable
            schedules={schedules.data}
            onPause={(name) => run(() => client.triggers.pauseSchedule.mutate({ name }))}
            onResume={(name) => run(() => client.triggers.resumeSchedule.mutate({ name }))}
            onDelete={(name) => (act.reset(), setDialog({ kind: "delete-schedule", name }))}
          />
        )}
      </section>

      <section aria-labelledby="hooks-title" className="space-y-3">
        <div className="flex items-center justify-between">
          <h2 id="hooks-title" className="text-base font-semibold text-white">Webhooks</h2>
          <Button variant="primary" size="sm" onClick={() => (act.reset(), setDialog({ kind: "hook" }))}>
            New webhook
          </Button>
        </div>
        {secret && (
          <div role="status" data-testid="hook-secret" className="space-y-1 rounded-lg border border-amber-400/30 bg-amber-400/5 p-3 text-xs text-amber-100">
            <p>
              The secret of <strong>{secret.name}</strong> ({secret.auth === "hmac" ? "sign each body with HMAC-SHA256, header X-Modex-Signature: sha256=<hex>" : "send Authorization: Bearer <secret>"}). It is shown this once:
            </p>
            <div className="flex items-start gap-2">
              <code className="block min-w-0 flex-1 select-all break-all font-mono text-sm text-white" data-testid="hook-secret-value">
                {secret.secret}
              </code>
              <CopyButton value={secret.secret} label="Copy secret" />
            </div>
            {/* Where to send it: without this the next step was to find the path in the table and the host in the address bar. */}
            <p className="pt-1">Post the JSON input to:</p>
            <div className="flex items-start gap-2">
              <code className="block min-w-0 flex-1 select-all break-all font-mono text-white" data-testid="hook-secret-url">
                POST {hookUrl(secret.path)}
              </code>
              <CopyButton value={hookUrl(secret.path)} label="Copy URL" />
            </div>
            <Button size="sm" variant="ghost" onClick={() => setSecret(null)}>
              Done
            </Button>
          </div>
        )}
        {act.error && !dialog && <p role="alert" className="text-xs text-rose-300">{errorMessage(act.error)}</p>}
        {hooks.isPending ? (
          <Skeleton className="h-24" />
        ) : hooks.isError ? (
          <ErrorState title="Could not load the webhooks" error={hooks.error} onRetry={() => void hooks.refetch()} />
        ) : (
          <HookTable
            hooks={hooks.data}
            onRotate={(name) => showSecret(() => client.triggers.rotateHook.mutate({ name }))}
            onDelete={(name) => (act.reset(), setDialog({ kind: "delete-hook", name }))}
          />
        )}
      </section>

      <NotificationsSection specs={specNames} />

      <ScheduleForm
        open={dialog?.kind === "schedule"}
        specs={specNames}
        busy={act.isPending}
        error={act.error ? errorMessage(act.error) : null}
        onSave={(input) => run(() => client.triggers.saveSchedule.mutate(input))}
        onClose={close}
      />
      <HookForm
        open={dialog?.kind === "hook"}
        specs={specNames}
        busy={act.isPending}
        error={act.error ? errorMessage(act.error) : null}
        onSave={(input) => showSecret(() => client.triggers.createHook.mutate(input))}
        onClose={close}
      />
      <ConfirmDialog
        open={dialog?.kind === "delete-schedule" || dialog?.kind === "delete-hook"}
        title={dialog?.kind === "delete-hook" ? "Delete webhook" : "Delete schedule"}
        confirmLabel="Delete"
        busy={act.isPending}
        error={act.error ? errorMessage(act.error) : null}
        onClose={close}
        onConfirm={() => {
          if (dialog?.kind === "delete-schedule") run(() => client.triggers.deleteSchedule.mutate({ name: dialog.name }));
          if (dialog?.kind === "delete-hook") run(() => client.triggers.deleteHook.mutate({ name: dialog.name }));
        }}
      >
        {dialog?.kind === "delete-hook"
          ? `Calls to /api/hooks/${dialog.name} will answer 404. Runs it started stay.`
          : `Schedule ${dialog && "name" in dialog ? dialog.name : ""} stops firing. Runs it started stay.`}
      </ConfirmDialog>
    </main>
  );
}

/** The hook's full URL as this browser reaches the server (the page's own origin). */
function hookUrl(path: string): string {
  return `${window.location.origin}${path}`;
}
