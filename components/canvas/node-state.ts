import type { NodeRunState } from "@/shared/canvas/node-state";

/** Border, dot and text colours per state (Tailwind classes, listed in full so the scanner sees them). */
export const NODE_STATE_LOOK: Record<NodeRunState, { border: string; dot: string; text: string }> = {
  pending: { border: "border-white/10", dot: "bg-zinc-600", text: "text-zinc-500" },
  running: { border: "border-indigo-400/70 shadow-[0_0_0_3px_rgba(129,140,248,0.15)]", dot: "bg-indigo-400 animate-pulse", text: "text-indigo-300" },
  completed: { border: "border-emerald-400/40", dot: "bg-emerald-400", text: "text-emerald-300" },
  failed: { border: "border-rose-500/70", dot: "bg-rose-500", text: "text-rose-300" },
  cancelled: { border: "border-zinc-500/50", dot: "bg-zinc-500", text: "text-zinc-400" },
  interrupted: { border: "border-orange-400/60", dot: "bg-orange-400", text: "text-orange-300" },
  waiting: { border: "border-amber-400/70 shadow-[0_0_0_3px_rgba(251,191,36,0.15)]", dot: "bg-amber-400 animate-pulse", text: "text-amber-300" },
  approval: { border: "border-amber-400/70 shadow-[0_0_0_3px_rgba(251,191,36,0.15)]", dot: "bg-amber-400 animate-pulse", text: "text-amber-300" },
};
