"use client";

import { Fragment, useEffect, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { isTyping, SHORTCUT_GROUPS, SHOW_SHORTCUTS_EVENT } from "@/components/shell/shortcuts";

/**
 * The keyboard shortcuts dialog: `?` anywhere but in a text field or an editor (and not over another
 * dialog), or "Keyboard shortcuts" in the command palette.
 */
export function ShortcutsOverlay() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "?" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || isTyping(e.target)) return;
      if (document.querySelector("dialog[open]")) return;
      e.preventDefault();
      setOpen(true);
    };
    const onShow = () => setOpen(true);
    window.addEventListener("keydown", onKey);
    window.addEventListener(SHOW_SHORTCUTS_EVENT, onShow);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(SHOW_SHORTCUTS_EVENT, onShow);
    };
  }, []);
  return (
    <Dialog open={open} onClose={() => setOpen(false)} title="Keyboard shortcuts">
      <ShortcutList />
    </Dialog>
  );
}

/** Rendered only while the dialog is open (in the browser), so it may read the platform. */
function ShortcutList() {
  const mod = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent) ? "⌘" : "Ctrl";
  return (
    <div className="space-y-4" data-testid="shortcuts">
      {SHORTCUT_GROUPS.map((group) => (
        <section key={group.title} aria-label={group.title}>
          <h3 className="mb-1.5 text-[11px] font-semibold uppercase tracking-wide text-zinc-500">{group.title}</h3>
          <dl className="grid grid-cols-[9rem_1fr] gap-x-4 gap-y-1.5 text-sm">
            {group.shortcuts.map((s) => (
              <Fragment key={s.keys.join("/") + s.does}>
                <dt className="flex items-center gap-1 text-xs text-zinc-500">
                  {s.keys.map((combo, i) => (
                    <Fragment key={combo.join("+")}>
                      {i > 0 && <span>or</span>}
                      {combo.map((k, j) => (
                        <Fragment key={k}>
                          {j > 0 && <span>+</span>}
                          <kbd className="min-w-6 rounded border border-white/15 bg-white/5 px-1.5 py-0.5 text-center font-sans text-xs text-zinc-200">{k === "Mod" ? mod : k}</kbd>
                        </Fragment>
                      ))}
                    </Fragment>
                  ))}
                </dt>
                <dd className="text-zinc-300">{s.does}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
