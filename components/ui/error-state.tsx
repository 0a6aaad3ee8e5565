import type { ReactNode } from "react";

/** Says what went wrong, with the server's message, and offers a retry. */
export function ErrorState({ title, error, onRetry, children }: { title: string; error?: unknown; onRetry?: () => void; children?: ReactNode }) {
  const message = error instanceof Error ? error.message : error ? String(error) : undefined;
  return (
    <div role="alert" data-testid="error-state" className="rounded-xl border border-rose-500/30 bg-rose-950/30 px-5 py-4">
      <p className="text-sm font-semibold text-rose-100">{title}</p>
      {message && <p className="mt-1 font-mono text-xs leading-5 text-rose-300/90">{message}</p>}
      {children}
      {onRetry && (
        <button type="button" onClick={onRetry} className="mt-3 text-xs font-semibold text-rose-200 underline underline-offset-2 hover:text-white">
          Try again
        </button>
      )}
    </div>
  );
}
