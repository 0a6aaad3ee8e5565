"use client";

import { createContext, type ReactNode, useContext } from "react";

/**
 * The sign-in session ref of the person looking at the page (the layout reads it from the request's
 * cookie, on the server; the cookie itself never reaches the page's script), or null (signed out, or a
 * token). An answer or decision recorded with the same ref is this login's, in whichever tab it was sent.
 */
const ViewerSession = createContext<string | null>(null);

export function ViewerSessionProvider({ session, children }: { session: string | null; children: ReactNode }) {
  return <ViewerSession.Provider value={session}>{children}</ViewerSession.Provider>;
}

export function useViewerSession(): string | null {
  return useContext(ViewerSession);
}
