"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";

export interface LeaveGuard {
  /** Where a guarded link click wanted to go, while the person decides. */
  pendingHref: string | null;
  stay(): void;
  /** Goes where the click wanted to, without asking again. */
  leave(): void;
}

/**
 * While `active` (the editor holds unsaved text): closing or reloading the tab asks the browser's own
 * question (`beforeunload`), and a click on a link to another page of the app is held until the
 * person chose (`pendingHref`). The App Router has no navigation events, so clicks are caught on the
 * window in the capture phase, before Next's <Link> handler sees them. Back/forward are not caught;
 * the local draft (use-editor-draft.ts) keeps the text for them.
 */
export function useLeaveGuard(active: boolean): LeaveGuard {
  const router = useRouter();
  const [pendingHref, setPendingHref] = useState<string | null>(null);
  const activeRef = useRef(active);
  activeRef.current = active;

  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!activeRef.current) return;
      e.preventDefault();
      e.returnValue = ""; // older Chromium asks only when this is set
    };
    const onClick = (e: MouseEvent) => {
      if (!activeRef.current || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
      if (!a || (a.target && a.target !== "_self") || a.hasAttribute("download")) return;
      const url = new URL(a.href, window.location.href);
      if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
      e.preventDefault();
      e.stopPropagation();
      setPendingHref(`${url.pathname}${url.search}${url.hash}`);
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    window.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      window.removeEventListener("click", onClick, true);
    };
  }, []);

  const stay = useCallback(() => setPendingHref(null), []);
  const leave = useCallback(() => {
    const href = pendingHref;
    activeRef.current = false;
    setPendingHref(null);
    if (href) router.push(href);
  }, [pendingHref, router]);
  return { pendingHref, stay, leave };
}
