"use client";

import { type ReactNode, useEffect, useRef } from "react";

/** A modal dialog on the native <dialog> element: focus trap, Escape and backdrop for free. */
export function Dialog({ open, onClose, title, children, footer, wide }: { open: boolean; onClose: () => void; title: string; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      onClick={(e) => e.target === ref.current && onClose()}
      aria-label={title}
      // A dialog is often opened from a table cell (a row's Run or Delete…), whose wrapping and alignment it would inherit.
      // Never wider than the window less a margin: a wide one (64rem) was edge to edge at a 1024 px window.
      className={`m-auto w-full whitespace-normal text-left ${wide ? "max-w-[min(64rem,calc(100%-2rem))]" : "max-w-[min(32rem,calc(100%-2rem))]"} rounded-xl border border-white/10 bg-zinc-900 p-0 text-zinc-100 shadow-2xl backdrop:bg-black/60 backdrop:backdrop-blur-sm`}
    >
      {open && (
        <div className="flex max-h-[85vh] flex-col">
          <div className="flex items-center justify-between border-b border-white/10 px-5 py-3">
            <h2 className="text-sm font-semibold">{title}</h2>
            <button type="button" onClick={onClose} aria-label="Close" className="rounded p-1 text-zinc-400 hover:bg-white/5 hover:text-white">
              ✕
            </button>
          </div>
          <div className="min-h-0 flex-1 overflow-auto px-5 py-4">{children}</div>
          {footer && <div className="flex justify-end gap-2 border-t border-white/10 px-5 py-3">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}
