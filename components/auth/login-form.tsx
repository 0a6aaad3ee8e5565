"use client";

import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * Takes the access token and exchanges it for a session cookie at /api/auth/login, then goes to `next`:
 * a same-origin path the login page checked on the server (safeNextPath), never the raw query.
 */
export function LoginForm({ next, initialError = null }: { next: string; initialError?: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: token.trim() }),
      });
      if (!res.ok) {
        const body: unknown = await res.json().catch(() => null);
        setError(res.status === 401 || res.status === 403 ? "That token was not accepted. Check it and try again." : (errorMessage(body) ?? `Sign-in failed (HTTP ${res.status}).`));
        return;
      }
      // A full navigation: the client router may hold the redirect to /login it was given before the
      // session existed, and would replay it.
      window.location.assign(next);
    } catch {
      setError("Could not reach the server. Is Modex running?");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} className="mt-8 space-y-4">
      <label className="block">
        <span className="text-sm font-medium text-zinc-200">Access token</span>
        <input
          type="password"
          name="token"
          autoComplete="current-password"
          autoFocus
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
          placeholder="Paste the token printed when Modex started"
          className="mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-900 px-3 py-2 font-mono text-sm text-zinc-100 outline-none placeholder:font-sans placeholder:text-zinc-600 focus:border-indigo-400 focus:ring-2 focus:ring-indigo-400/30"
        />
      </label>
      {error && (
        <p role="alert" className="rounded-md border border-rose-500/30 bg-rose-950/40 px-3 py-2 text-sm text-rose-200">
          {error}
        </p>
      )}
      <Button type="submit" variant="primary" disabled={busy || token.trim() === ""} className="w-full">
        {busy ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}

/** The message of an API error body ({ error: { message } }), e.g. the rate limit's "try again in 60 s". */
function errorMessage(body: unknown): string | null {
  const error = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === "string" ? error.message : null;
}
