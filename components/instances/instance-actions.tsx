"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { InstanceStatus } from "@/components/api/contract";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/**
 * Archive (or bring back) and delete one instance. Delete asks first and says it cannot be undone; a
 * running instance cannot be deleted (the button says why, and the server refuses with 409 anyway).
 */
export function InstanceActions({
  instanceId,
  status,
  archived,
  onChanged,
  onDeleted,
  size = "sm",
}: {
  instanceId: string;
  status: InstanceStatus;
  archived: boolean;
  onChanged: () => void;
  onDeleted: () => void;
  size?: "sm" | "md";
}) {
  const client = useModexClient();
  const [confirming, setConfirming] = useState(false);
  const archive = useMutation({
    mutationFn: () => client.instances.archive.mutate({ instanceId, archived: !archived }),
    onSuccess: onChanged,
  });
  const remove = useMutation({
    mutationFn: () => client.instances.delete.mutate({ instanceId }),
    onSuccess: () => {
      setConfirming(false);
      onDeleted();
    },
  });
  const running = status === "running";
  return (
    <span className="inline-flex items-center gap-1.5" onClick={(e) => e.stopPropagation()}>
      <Button size={size} variant="ghost" disabled={archive.isPending} onClick={() => archive.mutate()} title={archived ? "Show it in the list again" : "Hide it from the list (findable under Archived)"}>
        {archived ? "Unarchive" : "Archive"}
      </Button>
      <Button
        size={size}
        variant="danger"
        disabled={running}
        title={running ? "A running instance cannot be deleted: stop it first" : "Delete this run and its history"}
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
      >
        Delete…
      </Button>
      {archive.isError && <span className="text-xs text-rose-300">{errorMessage(archive.error)}</span>}
      {confirming && (
        <ConfirmDialog
          open
          title="Delete this instance?"
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.isError ? errorMessage(remove.error) : null}
          onConfirm={() => remove.mutate()}
          onClose={() => setConfirming(false)}
        >
          <p>
            Instance <span className="font-mono text-zinc-100">{instanceId}</span>, every version of it, its events, invocations and deliveries
            are removed.
          </p>
          <p className="font-semibold text-rose-200">This cannot be undone. To only hide it from the list, archive it instead.</p>
        </ConfirmDialog>
      )}
    </span>
  );
}
