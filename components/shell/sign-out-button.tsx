"use client";

import { useState } from "react";

/**
 * Ends the session on the server (POST /api/auth/logout revokes it: the cookie is refused from then
 * on, wherever it was copied) and goes to the login page with a full navigation, so no page the client
 * router cached stays reachable.
 */
export function SignOutButton() {
  const [state, setState] = useState<"idle" | "busy" | "failed">("idle");
  async function signOut() {
    setState("busy");
    try {
      const res = await fetch("/api/auth/logout", { method: "POST" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      window.location.assign("/login");
    } catch {
      setState("failed");
    }
  }
  return (
    <button
      type="button"
      onClick={() => void signOut()}
      disabled={state === "busy"}
      title={state === "failed" ? "Sign-out failed: the server could not be reached. Try again." : "End this session on the server"}
      className="rounded-md px-2 py-1.5 text-sm font-medium text-zinc-400 transition-colors xl:px-2.5 hover:bg-white/5 hover:text-zinc-100 disabled:opacity-50"
    >
      {state === "busy" ? "Signing out…" : state === "failed" ? "Sign out (failed, retry)" : "Sign out"}
    </button>
  );
}
