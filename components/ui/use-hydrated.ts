"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False while the server renders a page and while the browser hydrates it, true from the render right
 * after: what depends on the viewer's clock, time zone or language is drawn only then, so the HTML the
 * server sent and the browser's first render agree (a mismatch makes React re-render the whole page).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
