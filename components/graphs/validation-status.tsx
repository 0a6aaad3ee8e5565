import type { ServerValidation } from "@/components/graphs/use-server-validation";

/** The server's verdict on the current text, in a few words. */
export function ValidationStatus({ validation }: { validation: ServerValidation }) {
  switch (validation.state) {
    case "idle":
      return null;
    case "checking":
      return <span className="text-xs text-zinc-500">checking…</span>;
    case "valid":
      return (
        <span data-testid="validation" data-state="valid" className="text-xs text-emerald-300/90">
          ✓ compiles
        </span>
      );
    case "invalid":
      return (
        <span data-testid="validation" data-state="invalid" className="text-xs text-rose-300">
          {validation.issues.length} {validation.issues.length === 1 ? "error" : "errors"}
        </span>
      );
    case "unavailable":
      return (
        <span data-testid="validation" data-state="unavailable" title={validation.message} className="text-xs text-zinc-500">
          server check unavailable
        </span>
      );
  }
}
