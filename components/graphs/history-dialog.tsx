"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useModexClient } from "@/components/api/modex-client";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { timeAgo } from "@/components/ui/format-time";
import { RestoreButton, RestoreNotes } from "@/components/ui/restore-revision";
import { sideBySide } from "@/components/ui/side-by-side";
import { changedLines, SideBySideDiff } from "@/components/ui/side-by-side-diff";
import { Skeleton } from "@/components/ui/skeleton";

export interface HistoryDialogProps {
  open: boolean;
  onClose: () => void;
  name: string;
  /** Saves the given (older) version's YAML as the newest version. */
  onRestore?: (yaml: string) => void;
  /** Why Restore cannot be used now (unsaved changes in the editor), if it cannot. */
  restoreBlocked?: string;
  restoreError?: string | null;
}

/** Saved versions of one spec, a side-by-side diff of any two, and Restore (an old version saved as the newest). */
export function HistoryDialog({ open, onClose, name, onRestore, restoreBlocked, restoreError }: HistoryDialogProps) {
  const client = useModexClient();
  const history = useQuery({ queryKey: ["specs", "history", name], queryFn: () => client.specs.history.query({ name }), enabled: open });
  const [left, setLeft] = useState<string | null>(null);
  const [right, setRight] = useState<string | null>(null);

  const revisions = useMemo(
    () => [...(history.data ?? [])].sort((a, b) => b.createdAt - a.createdAt),
    [history.data],
  );
  useEffect(() => {
    if (revisions.length === 0) return;
    setRight((r) => r ?? revisions[0].specId);
    setLeft((l) => l ?? (revisions[1] ?? revisions[0]).specId);
  }, [revisions]);
  const leftSpec = useQuery({ queryKey: ["specs", "get", "id", left], queryFn: () => client.specs.get.query({ spec: left as string }), enabled: open && !!left, staleTime: Infinity });
  const rightSpec = useQuery({ queryKey: ["specs", "get", "id", right], queryFn: () => client.specs.get.query({ spec: right as string }), enabled: open && !!right, staleTime: Infinity });
  const rows = useMemo(() => (leftSpec.data && rightSpec.data ? sideBySide(leftSpec.data.yaml, rightSpec.data.yaml) : null), [leftSpec.data, rightSpec.data]);

  const label = (id: string) => {
    const i = revisions.findIndex((r) => r.specId === id);
    const rev = revisions[i];
    return rev ? `#${revisions.length - i}${rev.version ? ` · v${rev.version}` : ""} · ${timeAgo(rev.createdAt)}` : id;
  };

  const picker = (value: string | null, set: (v: string) => void, aria: string) => (
    <select aria-label={aria} value={value ?? ""} onChange={(e) => set(e.target.value)} className="rounded-md border border-white/15 bg-zinc-950 px-2 py-1 text-xs text-zinc-200">
      {revisions.map((r) => (
        <option key={r.specId} value={r.specId}>
          {label(r.specId)}
        </option>
      ))}
    </select>
  );

  return (
    <Dialog open={open} onClose={onClose} title={`History of ${name}`} wide>
      {history.isPending ? (
        <Skeleton className="h-40" />
      ) : history.isError ? (
        <ErrorState title="Could not load the history" error={history.error} />
      ) : revisions.length < 2 ? (
        <p className="text-sm text-zinc-400">Only one version is saved. Each save that changes the YAML adds a version you can compare here.</p>
      ) : (
        <div data-testid="history-diff">
          <div className="mb-3 grid grid-cols-2 gap-4 text-xs text-zinc-400">
            <div className="flex items-center gap-2">
              <label className="flex items-center gap-2">Before {picker(left, setLeft, "Older version")}</label>
              {onRestore && left && left !== revisions[0]?.specId && (
                <RestoreButton noun="version" blocked={restoreBlocked} disabled={!leftSpec.data} onClick={() => leftSpec.data && onRestore(leftSpec.data.yaml)} />
              )}
            </div>
            <label className="flex items-center gap-2">After {picker(right, setRight, "Newer version")} <span className="ml-auto">{rows ? changedLines(rows) : ""}</span></label>
          </div>
          {onRestore && <RestoreNotes blocked={restoreBlocked} error={restoreError} />}
          {!rows ? <Skeleton className="h-64" /> : <SideBySideDiff rows={rows} />}
        </div>
      )}
    </Dialog>
  );
}
