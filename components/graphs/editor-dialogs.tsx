"use client";

import { timeAgo } from "@/components/ui/format-time";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import type { EditorDraft } from "@/components/graphs/editor-draft";

/** A link was clicked while the editor holds unsaved text. */
export function LeaveDialog({ href, saving, onStay, onLeave, onSaveAndLeave }: { href: string | null; saving: boolean; onStay(): void; onLeave(): void; onSaveAndLeave(): void }) {
  return (
    <Dialog
      open={href !== null}
      onClose={onStay}
      title="Unsaved changes"
      footer={
        <>
          <Button onClick={onStay}>Stay</Button>
          <Button variant="danger" onClick={onLeave}>Leave without saving</Button>
          <Button variant="primary" onClick={onSaveAndLeave} disabled={saving}>{saving ? "Saving…" : "Save and leave"}</Button>
        </>
      }
    >
      <p className="text-sm text-zinc-300" data-testid="leave-dialog">
        This graph has changes that are not saved. If you leave, they stay in this browser as a draft that the editor offers
        back when you open the graph again.
      </p>
    </Dialog>
  );
}

/** Saving would add a version to another graph that already has this name. */
export function NameTakenDialog({ name, onCancel, onConfirm }: { name: string | null; onCancel(): void; onConfirm(): void }) {
  return (
    <Dialog
      open={name !== null}
      onClose={onCancel}
      title="A graph with this name exists"
      footer={
        <>
          <Button onClick={onCancel}>Cancel</Button>
          <Button variant="primary" onClick={onConfirm}>Save as its new version</Button>
        </>
      }
    >
      <p className="text-sm text-zinc-300" data-testid="name-taken">
        A graph named <code className="font-mono text-zinc-100">{name}</code> is already saved. Saving this text makes it the
        newest version of that graph (its history keeps the older ones). To keep both, cancel and change <code className="font-mono">name:</code>.
      </p>
    </Dialog>
  );
}

/** A draft from an earlier visit, offered back above the editor. */
export function DraftBanner({ draft, savedSpecId, onRestore, onDiscard }: { draft: EditorDraft; savedSpecId: string | null; onRestore(): void; onDiscard(): void }) {
  // The graph was saved again (elsewhere) since the draft was made from it.
  const older = draft.baseSpecId !== null && savedSpecId !== null && draft.baseSpecId !== savedSpecId;
  return (
    <div role="status" data-testid="draft-banner" className="flex shrink-0 items-center gap-3 border-b border-amber-400/30 bg-amber-400/10 px-4 py-2 text-xs text-amber-100">
      <span>
        Unsaved changes from {timeAgo(draft.savedAt)} are kept in this browser.
        {older && " They were made on an earlier version: the graph has been saved since (History keeps that version)."}
      </span>
      <Button size="sm" variant="primary" onClick={onRestore}>Restore them</Button>
      <Button size="sm" variant="ghost" onClick={onDiscard}>Discard</Button>
    </div>
  );
}
