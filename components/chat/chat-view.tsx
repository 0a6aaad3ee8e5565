"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import type { ApprovalActions } from "@/components/chat/chat-approval-card";
import { errorCode, errorMessage, useModexClient } from "@/components/api/modex-client";
import { ChatAgentPicker } from "@/components/chat/chat-agent-picker";
import { ChatComposer } from "@/components/chat/chat-composer";
import { ChatSidebar } from "@/components/chat/chat-sidebar";
import { foldChat } from "@/components/chat/chat-transcript";
import { ChatTurnView } from "@/components/chat/chat-turn";
import { useChatEvents } from "@/components/chat/use-chat-events";
import { EmptyState } from "@/components/ui/empty-state";
import { useDocumentTitle } from "@/components/ui/use-document-title";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";

/** Chat with the agent: chats on the left, the conversation streaming on the right. */
export function ChatView() {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const sessionId = params.get("session");
  // The agent a new chat talks to (`?agent=` from the Agents page, else the server's default).
  const [picked, setPicked] = useState<string | null>(params.get("agent"));
  const status = useQuery({ queryKey: ["chat", "status"], queryFn: () => client.chat.status.query(), staleTime: 60_000 });
  const [query, setQuery] = useState("");
  const sessions = useQuery({ queryKey: ["chat", "list", query], queryFn: () => client.chat.list.query({ q: query.trim() || undefined }), refetchInterval: 3_000, placeholderData: keepPreviousData });
  const current = useQuery({
    queryKey: ["chat", "get", sessionId],
    queryFn: () => client.chat.get.query({ sessionId: sessionId ?? "" }),
    enabled: sessionId !== null,
    refetchInterval: 3_000,
    retry: (n, e) => errorCode(e) !== "NOT_FOUND" && n < 2,
  });
  // A link to a chat that was deleted (or mistyped): said plainly, instead of the new-chat screen under
  // a red "stream lost", whose composer would have started a different chat.
  const missing = sessionId !== null && current.isError && errorCode(current.error) === "NOT_FOUND";
  useDocumentTitle(missing ? "Chat not found" : current.data ? `${current.data.title} · Chat` : null);
  const stream = useChatEvents(sessionId);
  const turns = useMemo(() => foldChat(stream.events), [stream.events]);
  const last = turns.filter((t) => !t.system).at(-1);
  const running = last?.state === "running";
  const waiting = last?.state === "waiting";

  const send = useMutation({
    mutationFn: ({ message, busyInput }: { message: string; busyInput?: "INTERRUPT" | "QUEUE" | "STEER" }) =>
      client.chat.send.mutate({ sessionId: sessionId ?? undefined, message, busyInput, agent: sessionId ? undefined : (picked ?? status.data?.defaultAgent ?? undefined) }),
    onSuccess: (r) => {
      if (r.sessionId && r.sessionId !== sessionId) router.replace(`/chat?session=${r.sessionId}`);
      void queryClient.invalidateQueries({ queryKey: ["chat"] });
    },
  });
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: ["chat"] });
  const rename = useMutation({ mutationFn: (a: { sessionId: string; title: string }) => client.chat.rename.mutate(a), onSuccess: invalidate });
  const remove = useMutation({
    mutationFn: (id: string) => client.chat.remove.mutate({ sessionId: id }),
    onSuccess: (_r, id) => {
      if (id === sessionId) router.replace("/chat");
      invalidate();
    },
  });
  const stop = useMutation({ mutationFn: () => client.chat.cancel.mutate({ sessionId: sessionId ?? "" }) });
  const decide = useMutation({
    mutationFn: (d: { transactionId: string; approved: boolean; reason?: string }) => client.chat.decide.mutate({ sessionId: sessionId ?? "", ...d }),
  });
  const approvals: ApprovalActions = {
    decide: (d) => decide.mutate(d),
    pending: decide.isPending ? (decide.variables?.transactionId ?? null) : null,
    error: decide.isError && decide.variables ? { transactionId: decide.variables.transactionId, message: errorMessage(decide.error) } : null,
  };

  const bottom = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // A block body: newer browsers return a promise from scrollIntoView, which React would take for a cleanup.
    bottom.current?.scrollIntoView({ block: "end" });
  }, [turns]);

  return (
    <main data-testid="chat-view" className="flex h-[calc(100dvh-3.5rem)] min-w-[1024px]">
      <ChatSidebar
        sessions={sessions.data ?? (sessions.isError ? [] : null)}
        current={sessionId}
        query={query}
        onQuery={setQuery}
        actions={{ rename: (id, title) => rename.mutate({ sessionId: id, title }), remove: (id) => remove.mutate(id) }}
      />
      <section className="flex min-w-0 flex-1 flex-col">
        <div className="flex h-12 shrink-0 items-center gap-3 border-b border-white/10 px-6">
          <h1 className="text-sm font-semibold text-white">Chat</h1>
          {status.data?.configured && (
            <span data-testid="chat-model" className="rounded-full border border-white/10 px-2 py-0.5 font-mono text-[11px] text-zinc-400">
              {status.data.model}
            </span>
          )}
          {status.data?.configured && (
            <ChatAgentPicker
              session={sessionId ? (sessions.data?.find((s) => s.sessionId === sessionId)?.agent ?? null) : null}
              starting={sessionId === null}
              value={picked ?? status.data.defaultAgent}
              onChange={setPicked}
            />
          )}
          {stream.live === "error" && !missing && <span className="text-xs text-rose-300">stream lost: {stream.error}</span>}
        </div>
        {status.isPending ? (
          <div className="space-y-3 p-6" aria-label="Loading">
            <Skeleton className="h-10 w-2/3" />
            <Skeleton className="h-24" />
          </div>
        ) : status.isError ? (
          <div className="p-6">
            <ErrorState title="Could not reach the chat service" error={status.error} onRetry={() => void status.refetch()} />
          </div>
        ) : !status.data.configured ? (
          <div className="mx-auto mt-16 w-full max-w-xl px-6">
            <EmptyState title="Connect a model to chat">
              <p>The agent needs an OpenAI-compatible model server (OpenAI, Ollama, vLLM, llama.cpp). Start Modex with:</p>
              <pre className="mt-3 rounded-lg bg-zinc-900 px-3 py-2 text-left font-mono text-xs text-zinc-200">
                MODEX_LLM_BASE_URL=http://127.0.0.1:11434/v1{"\n"}MODEX_LLM_MODEL=qwen3{"\n"}MODEX_LLM_API_KEY=… # if it needs one
              </pre>
              <p className="mt-3">
                No model at hand? <code className="font-mono text-zinc-300">MODEX_LLM_MODEL=modex-demo</code> starts the offline demo model: not a language model,
                a scripted stand-in that follows the tool protocol, so the chat and every example graph can be seen working.
              </p>
            </EmptyState>
          </div>
        ) : missing ? (
          <div className="mx-auto mt-16 w-full max-w-xl px-6">
            <EmptyState
              title={`There is no chat ${sessionId}`}
              action={
                <Link href="/chat" className="rounded-lg bg-indigo-500 px-3.5 py-1.5 text-sm font-semibold text-on-accent hover:bg-indigo-400">
                  Start a new chat
                </Link>
              }
            >
              It may have been deleted, or the link was cut short when copied. Your chats are listed on the left.
            </EmptyState>
          </div>
        ) : (
          <>
            <div className="min-h-0 flex-1 overflow-y-auto px-6 py-6">
              {turns.length === 0 ? (
                <div data-testid="chat-empty" className="mx-auto mt-16 max-w-md text-center">
                  <p className="text-lg font-semibold text-zinc-100">What can the agent do for you?</p>
                  {/* The model on a line of its own: a long name in the sentence broke mid-name. */}
                  <p className="mt-2 text-sm text-zinc-400">
                    Each message is one agent turn on{" "}
                    <span data-testid="chat-empty-model" className="whitespace-nowrap font-mono text-zinc-300">{status.data.model}</span>
                  </p>
                  <ul className="mx-auto mt-4 inline-block space-y-1.5 text-left text-sm text-zinc-400">
                    <li>· streams its answer as it writes</li>
                    <li>· plans multi-step work in a todo list</li>
                    <li>· lists and runs your graphs, each run after you approve it</li>
                    <li>· stops when you press Stop</li>
                  </ul>
                </div>
              ) : (
                <ol className="mx-auto max-w-3xl space-y-6" aria-label="Conversation">
                  {turns.map((t) => (
                    <ChatTurnView key={t.turnId} turn={t} approvals={approvals} traceHref={sessionId && !t.system ? `/traces?session=${sessionId}&turn=${t.turnId}` : undefined} />
                  ))}
                </ol>
              )}
              <div ref={bottom} />
            </div>
            {send.isError && (
              <p role="alert" className="mx-auto mb-2 max-w-3xl px-6 text-xs text-rose-300">
                {errorMessage(send.error)}
              </p>
            )}
            <ChatComposer
              running={running}
              waiting={waiting}
              busy={send.isPending}
              mode={current.data?.busyInput ?? status.data.busyInput}
              onSend={(message, busyInput) => send.mutate({ message, busyInput })}
              onStop={() => stop.mutate()}
            />
          </>
        )}
      </section>
    </main>
  );
}
