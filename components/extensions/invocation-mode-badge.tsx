import type { RouterOutputs } from "@/server/api/root";

type Mode = RouterOutputs["extensions"]["list"]["pointGroups"][number]["points"][number]["mode"];

/** One hue per way results combine, so a glance down a list tells observers from filters from gates. */
const LOOK: Record<Mode, string> = {
  COLLECT: "bg-white/5 text-zinc-400",
  TRANSFORM: "bg-sky-400/10 text-sky-300",
  UNTIL_HANDLED: "bg-amber-400/10 text-amber-300",
  CANCELLABLE: "bg-rose-400/10 text-rose-300",
};

const MEANING: Record<Mode, string> = {
  COLLECT: "every extension is called; what they return is gathered",
  TRANSFORM: "each extension may replace the value; the next one receives it",
  UNTIL_HANDLED: "the first extension that handles it ends the call",
  CANCELLABLE: "an explicit false from any extension stops what comes next",
};

/** A point's invocation mode (and the value a TRANSFORM chains through), with what it means in the tooltip. */
export function InvocationModeBadge({ mode, transformKey }: { mode: Mode; transformKey?: string }) {
  return (
    <span data-testid="invocation-mode" title={MEANING[mode]} className={`whitespace-nowrap rounded px-1.5 py-0.5 font-mono text-[10px] ${LOOK[mode]}`}>
      {mode}
      {transformKey && <span className="opacity-70"> {transformKey}</span>}
    </span>
  );
}
