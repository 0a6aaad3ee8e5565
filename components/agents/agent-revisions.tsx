"use client";

import { useQuery } from "@tanstack/react-query";
import { type RefObject, useEffect, useRef, useState } from "react";
import { useModexClient } from "@/components/api/modex-client";
import { timestamp } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";

/** A revision as the list shows it, and the dialog that opens from it. */
export interface RevisionRef {
  agentId: string;
  /** 1 for the first revision saved, `of` for the latest. */
  number: number;
  of: number;
  createdAt: number;
  bytes: number;
}

/**
 * How many revisions the agent has, and when each was saved (newest first); a click on one opens it
 * (`onOpen`: its YAML, compared with the editor's text, and Restore).
 */
export function AgentRevisions({ name, onOpen }: { name: string; onOpen(revision: RevisionRef): void }) {
  const client = useModexClient();
  const list = useRef<HTMLDetailsElement>(null);
  const history = useQuery({ queryKey: ["agents", "history", name], queryFn: () => client.agents.history.query({ name }) });
  const [open, setOpen] = useState(false);
  useDismiss(list, open);
  if (!history.data || history.data.length === 0) return null;
  const count = history.data.length;
  return (
    <details ref={list} data-testid="agent-revisions" onToggle={(e) => setOpen(e.currentTarget.open)} className="relative text-xs text-zinc-400">
      <summary className="cursor-pointer select-none hover:text-white" title="Every saved revision of this agent, newest first: open one to compare it with the editor or restore it">
        {count} revision{count === 1 ? "" : "s"}
      </summary>
      <ol className="absolute left-0 z-20 mt-1 max-h-64 w-72 overflow-y-auto rounded-lg border border-white/10 bg-zinc-900 p-1 shadow-lg">
        {history.data.map((r, i) => (
          <li key={r.agentId}>
            <button
              type="button"
              data-testid="agent-revision"
              title="Open this revision: its YAML, compared with the editor's text"
              onClick={() => {
                list.current?.removeAttribute("open");
                onOpen({ agentId: r.agentId, number: count - i, of: count, createdAt: r.createdAt, bytes: r.bytes });
              }}
              className="flex w-full items-center gap-2 rounded px-2 py-1 text-left hover:bg-white/5"
            >
              <span className="w-7 shrink-0 tabular-nums text-zinc-500">#{count - i}</span>
              <LocalTime at={r.createdAt} title={timestamp(r.createdAt)} className="text-zinc-200" />
              {i === 0 && <span className="text-emerald-300">latest</span>}
              <span className="ml-auto font-mono text-[10px] text-zinc-500" title="Revision id (GET /api/agents/{name}?revision={id})">
                {r.agentId}
              </span>
            </button>
          </li>
        ))}
      </ol>
    </details>
  );
}

/**
 * A <details> drop-down closes only on its own summary: this closes it on Escape (focus back on the
 * summary) and on a press outside it, as the app's other menus close.
 */
function useDismiss(details: RefObject<HTMLDetailsElement | null>, open: boolean) {
  useEffect(() => {
    if (!open) return;
    const close = () => details.current?.removeAttribute("open");
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      close();
      details.current?.querySelector("summary")?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (!(e.target instanceof Node && details.current?.contains(e.target))) close();
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [details, open]);
}
