"use client";

import Link from "next/link";
import type { ChatSessionDto } from "@/components/chat/chat-transcript";
import { timeAgo } from "@/components/ui/format-time";

/** Every chat of the server, most recent first, and "New chat". */
export function ChatSidebar({ sessions, current }: { sessions: readonly ChatSessionDto[]; current: string | null }) {
  return (
    <aside className="flex w-64 shrink-0 flex-col border-r border-white/10 bg-zinc-950">
      <div className="p-3">
        <Link href="/chat" className="block rounded-lg border border-white/15 px-3 py-1.5 text-center text-sm font-semibold text-zinc-200 hover:bg-white/5">
          New chat
        </Link>
      </div>
      <ul className="min-h-0 flex-1 overflow-y-auto px-2 pb-3" aria-label="Chats">
        {sessions.length === 0 && <li className="px-2 py-1 text-xs text-zinc-500">Your chats appear here.</li>}
        {sessions.map((s) => (
          <li key={s.sessionId}>
            <Link
              href={`/chat?session=${s.sessionId}`}
              data-testid="chat-session"
              aria-current={s.sessionId === current ? "page" : undefined}
              className={`block rounded-md px-2 py-1.5 text-sm ${s.sessionId === current ? "bg-white/10 text-white" : "text-zinc-400 hover:bg-white/5 hover:text-zinc-100"}`}
            >
              <span className="flex items-center gap-1.5">
                {s.awaitingApproval ? (
                  <span className="h-1.5 w-1.5 shrink-0 rounded-full bg-amber-300" aria-label="waiting for your approval" title="Waiting for your approval" />
                ) : (
                  s.running && <span className="h-1.5 w-1.5 shrink-0 animate-pulse rounded-full bg-indigo-400" aria-label="answering" />
                )}
                <span className="truncate">{s.title}</span>
              </span>
              <span className="text-[11px] text-zinc-500">
                {s.agent ? `${s.agent} · ` : ""}
                {s.turns} message{s.turns === 1 ? "" : "s"} · {timeAgo(s.updatedAt)}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </aside>
  );
}
