"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { RevisionRef } from "@/components/agents/agent-revisions";
import { useModexClient } from "@/components/api/modex-client";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { timestamp } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";
import { RestoreButton, RestoreNotes } from "@/components/ui/restore-revision";
import { sideBySide } from "@/components/ui/side-by-side";
import { changedLines, SideBySideDiff } from "@/components/ui/side-by-side-diff";
import { Skeleton } from "@/components/ui/skeleton";
import { TabBar } from "@/components/ui/tab-bar";

type View = "compare" | "yaml";
const VIEWS = [
  { value: "compare", label: "Compare with the editor" },
  { value: "yaml", label: "YAML" },
] as const;

export interface AgentRevisionDialogProps {
  name: string;
  revision: RevisionRef;
  /** What the editor holds now (saved or not): the right side of the comparison. */
  editorText: string;
  /** Whether the editor's text differs from the latest saved revision. */
  editorDirty: boolean;
  onClose(): void;
  /** Saves the revision's YAML as the newest revision (as the graph History's Restore). */
  onRestore(yaml: string): void;
  restoreBlocked?: string;
  restoreError?: string | null;
}

/**
 * One saved revision of an agent: its YAML read-only, side by side with the editor's text, and Restore
 * (offered for any revision but the latest).
 */
export function AgentRevisionDialog({ name, revision, editorText, editorDirty, onClose, onRestore, restoreBlocked, restoreError }: AgentRevisionDialogProps) {
  const client = useModexClient();
  const [view, setView] = useState<View>("compare");
  // A revision never changes: fetched once, by id.
  const detail = useQuery({ queryKey: ["agents", "revision", revision.agentId], queryFn: () => client.agents.get.query({ agent: revision.agentId }), staleTime: Infinity });
  const yaml = detail.data?.yaml;
  const rows = useMemo(() => (yaml === undefined ? null : sideBySide(yaml, editorText)), [yaml, editorText]);
  const latest = revision.number === revision.of;

  return (
    <Dialog open onClose={onClose} title={`${name}: revision #${revision.number} of ${revision.of}`} wide>
      <div data-testid="agent-revision-view" className="text-xs text-zinc-400">
        <div className="mb-3 flex flex-wrap items-center gap-x-3 gap-y-2">
          <span>
            Saved <LocalTime at={revision.createdAt} title={timestamp(revision.createdAt)} className="text-zinc-200" />
            {latest && <span className="ml-2 text-emerald-300">latest</span>}
          </span>
          <span className="tabular-nums">{revision.bytes.toLocaleString("en")} bytes</span>
          <span className="font-mono text-[10px] text-zinc-500" title="Revision id">{revision.agentId}</span>
          <div className="ml-auto flex items-center gap-3">
            <TabBar label="Show" tabs={VIEWS} value={view} onChange={setView} look="small" />
            {!latest && <RestoreButton noun="revision" blocked={restoreBlocked} disabled={yaml === undefined} onClick={() => yaml !== undefined && onRestore(yaml)} />}
          </div>
        </div>
        {!latest && <RestoreNotes blocked={restoreBlocked} error={restoreError} />}
        {detail.isError ? (
          <ErrorState title="Could not load this revision" error={detail.error} onRetry={() => void detail.refetch()} />
        ) : yaml === undefined || rows === null ? (
          <Skeleton className="h-64" />
        ) : view === "yaml" ? (
          <pre data-testid="agent-revision-yaml" className="overflow-x-auto rounded-lg border border-white/10 bg-[var(--modex-editor-bg)] p-3 font-mono text-[12px] leading-5 text-zinc-200">
            {yaml}
          </pre>
        ) : (
          <div data-testid="agent-revision-diff">
            <div className="mb-1 grid grid-cols-2 gap-4">
              <span className="font-semibold text-zinc-300">Revision #{revision.number}</span>
              <span className="flex">
                <span className="font-semibold text-zinc-300">The editor{editorDirty ? " (unsaved changes)" : ""}</span>
                <span data-testid="agent-revision-changes" className="ml-auto">{rows.some((r) => r.kind !== "same") ? changedLines(rows) : "the same text"}</span>
              </span>
            </div>
            <SideBySideDiff rows={rows} />
          </div>
        )}
      </div>
    </Dialog>
  );
}
