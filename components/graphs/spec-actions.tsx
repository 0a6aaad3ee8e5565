"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/**
 * Archive (or bring back) and delete a spec name, for the Graphs list. Delete asks first, says it
 * cannot be undone, and is refused while the spec has instances (the button says so; the server
 * answers 409 anyway): delete those, or archive the spec to hide it.
 */
export function SpecActions({ name, archived, instances }: { name: string; archived: boolean; instances: number }) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["specs", "list"] });
  const archive = useMutation({ mutationFn: () => client.specs.archive.mutate({ name, archived: !archived }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => client.specs.delete.mutate({ name }),
    onSuccess: () => {
      setConfirming(false);
      refresh();
    },
  });
  const blocked = instances > 0 ? `It has ${instances} instance${instances === 1 ? "" : "s"}: delete them first, or archive the graph` : null;
  return (
    <span className="ml-2 inline-flex items-center gap-1 opacity-0 group-hover:opacity-100 focus-within:opacity-100" data-testid="spec-actions">
      <Button size="sm" variant="ghost" disabled={archive.isPending} onClick={() => archive.mutate()} aria-label={`${archived ? "Unarchive" : "Archive"} ${name}`}>
        {archived ? "Unarchive" : "Archive"}
      </Button>
      <Button
        size="sm"
        variant="danger"
        disabled={blocked !== null}
        title={blocked ?? `Delete ${name} and every revision of it`}
        aria-label={`Delete ${name}`}
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
      >
        Delete…
      </Button>
      {confirming && (
        <ConfirmDialog
          open
          title={`Delete ${name}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.isError ? errorMessage(remove.error) : null}
          onConfirm={() => remove.mutate()}
          onClose={() => setConfirming(false)}
        >
          <p>Every saved revision of {name} is removed. A spec that comes from the specs folder is saved again at the next start unless its file is removed too.</p>
          <p className="font-semibold text-rose-200">This cannot be undone. To only hide it from the list, archive it instead.</p>
        </ConfirmDialog>
      )}
    </span>
  );
}
