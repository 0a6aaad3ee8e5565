"use client";

import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/**
 * Asks before an action that cannot be undone (stop, delete): says what will happen, and the confirm
 * button names the action. `error` shows why the action was refused; the dialog stays open.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={title}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" disabled={busy} onClick={onConfirm} data-testid="confirm-action">
            {busy ? `${confirmLabel}…` : confirmLabel}
          </Button>
        </>
      }
    >
      <div className="space-y-2 text-sm text-zinc-300">{children}</div>
      {error && (
        <p role="alert" className="mt-3 rounded-md border border-rose-500/30 bg-rose-950/40 px-3 py-2 text-xs text-rose-200">
          {error}
        </p>
      )}
    </Dialog>
  );
}
