"use client";

import Link from "next/link";
import { useState } from "react";
import type { ChatSessionDto } from "@/components/chat/chat-transcript";
import { LocalTime } from "@/components/ui/local-time";
import { SearchInput } from "@/components/ui/search-input";
import { Skeleton } from "@/components/ui/skeleton";

export interface ChatSidebarActions {
  rename(sessionId: string, title: string): void;
  remove(sessionId: string): void;
}

/** Every chat (kept across restarts), most recent first: search, "New chat", rename and delete. */
export function ChatSidebar({
  sessions,
  current,
  query,
  onQuery,
  actions,
}: {
  /** null while the list loads (it said "Your chats appear here." over a list about to show). */
  sessions: readonly ChatSessionDto[] | null;
  current: string | null;
  query: string;
  onQuery(q: string): void;
  actions: ChatSidebarActions;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <aside className="flex w-64 shrink-0 flex-col border-r border-white/10 bg-zinc-950">
      <div className="space-y-2 p-3">
        <Link href="/chat" className="block rounded-lg border border-white/15 px-3 py-1.5 text-center text-sm font-semibold text-zinc-200 hover:bg-white/5">
          New chat
        </Link>
        <SearchInput label="Search chats" placeholder="Search chats…" value={query} onChange={onQuery} className="w-full" />
      </div>
      <ul className="min-h-0 flex-1 overflow-y-auto px-2 pb-3" aria-label="Chats">
        {sessions === null &&
          [0, 1, 2].map((i) => (
            <li key={i} aria-hidden="true" className="space-y-1.5 px-2 py-2">
              <Skeleton className="h-3.5 w-3/4" />
              <Skeleton className="h-2.5 w-1/2" />
            </li>
          ))}
        {sessions?.length === 0 && <li className="px-2 py-1 text-xs text-zinc-500">{query ? "No chat matches." : "Your chats appear here."}</li>}
        {sessions?.map((s) =>
          editing === s.sessionId ? (
            <li key={s.sessionId} className="px-1 py-1">
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  const title = String(new FormData(e.currentTarget).get("title") ?? "").trim();
                  if (title) actions.rename(s.sessionId, title);
                  setEditing(null);
                }}
              >
                <input
                  name="title"
                  aria-label="Chat title"
                  defaultValue={s.title}
                  autoFocus
                  onBlur={() => setEditing(null)}
                  onKeyDown={(e) => e.key === "Escape" && setEditing(null)}
                  className="w-full rounded-md border border-indigo-400/60 bg-zinc-900 px-2 py-1 text-sm text-zinc-100 outline-none"
                />
              </form>
            </li>
          ) : (
            <li key={s.sessionId} className="group relative">
              <Link
                href={`/chat?session=${s.sessionId}`}
                data-testid="chat-session"
                aria-current={s.sessionId === current ? "page" : undefined}
                className={`block rounded-md px-2 py-1.5 text-sm ${s.sessionId === current ? "bg-white/10 text-white" : "text-zinc-400 hover:bg-white/5 hover:text-zinc-100"}`}
              >
                {/* Room on the title's line for the hover actions (rename, delete); the line below has the width. */}
                <span className="flex items-center gap-1.5 pr-12">
                  {s.awaitingApproval ? (
                    <span className="h-1.5 w-1.5 shrink-0 rounded-full bg-amber-300" aria-label="waiting for your approval" title="Waiting for your approval" />
                  ) : (
                    s.running && <span className="h-1.5 w-1.5 shrink-0 animate-pulse rounded-full bg-indigo-400" aria-label="answering" />
                  )}
                  <span className="truncate">{s.title}</span>
                </span>
                {/* The server counts turns (a message of yours and the agent's answer to it), not messages. */}
                <span className="block truncate text-[11px] text-zinc-500" title="A turn is one message of yours and the agent's answer">
                  {s.agent ? `${s.agent} · ` : ""}
                  {s.turns === 0 ? "no messages yet" : `${s.turns} turn${s.turns === 1 ? "" : "s"}`} · <LocalTime at={s.updatedAt} format="ago" />
                </span>
              </Link>
              <span className="absolute right-1 top-1.5 hidden gap-0.5 group-focus-within:flex group-hover:flex">
                <button type="button" aria-label={`Rename ${s.title}`} title="Rename" onClick={() => setEditing(s.sessionId)} className="rounded px-1 text-xs text-zinc-400 hover:bg-white/10 hover:text-white">
                  ✎
                </button>
                <button
                  type="button"
                  aria-label={`Delete ${s.title}`}
                  title="Delete"
                  onClick={() => window.confirm(`Delete the chat “${s.title}” and its transcript?`) && actions.remove(s.sessionId)}
                  className="rounded px-1 text-xs text-zinc-400 hover:bg-rose-500/20 hover:text-rose-200"
                >
                  ✕
                </button>
              </span>
            </li>
          ),
        )}
      </ul>
    </aside>
  );
}
