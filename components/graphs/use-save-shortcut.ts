"use client";

import { useEffect, useRef, useSyncExternalStore } from "react";

/**
 * Ctrl+S (⌘S on macOS) saves wherever the focus is on the page (the editor, the preview, a button, the
 * page itself), never the browser's "Save page as". One listener on the window in the capture phase,
 * so Monaco and React Flow see no second copy of the key.
 */
export function useSaveShortcut(save: () => void): void {
  const ref = useRef(save);
  ref.current = save;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== "s") return;
      e.preventDefault();
      e.stopPropagation();
      if (!e.repeat) ref.current();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, []);
}

const noSubscribe = () => () => {};

/** "⌘S" on macOS (and iOS), "Ctrl+S" elsewhere; "Ctrl+S" in the server's HTML, corrected on hydration. */
export function useSaveShortcutLabel(): string {
  const mac = useSyncExternalStore(
    noSubscribe,
    () => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent),
    () => false,
  );
  return mac ? "⌘S" : "Ctrl+S";
}
