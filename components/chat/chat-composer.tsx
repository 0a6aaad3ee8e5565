"use client";

import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * The message box: Enter sends, Shift+Enter adds a line; while the agent answers, Stop cancels it; while
 * the turn waits for an approval, the box says so and sends nothing until the call is decided.
 */
export function ChatComposer({
  running,
  waiting,
  busy,
  onSend,
  onStop,
}: {
  running: boolean;
  waiting: boolean;
  busy: boolean;
  onSend(text: string): void;
  onStop(): void;
}) {
  const [text, setText] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (running || waiting || busy || text.trim() === "") return;
    onSend(text.trim());
    setText("");
  };
  return (
    <form onSubmit={submit} className="border-t border-white/10 bg-zinc-950 px-6 py-4">
      {waiting && (
        <p data-testid="chat-waiting" role="status" className="mx-auto mb-2 flex max-w-3xl items-center gap-2 text-xs text-amber-200">
          <span className="h-1.5 w-1.5 shrink-0 rounded-full bg-amber-300" aria-hidden="true" />
          The agent is waiting for your approval: approve or deny the call above to continue.
        </p>
      )}
      <div className="mx-auto flex max-w-3xl items-end gap-2 rounded-xl border border-white/15 bg-zinc-900 p-2 focus-within:border-indigo-400/60">
        <textarea
          aria-label="Message"
          rows={2}
          value={text}
          autoFocus
          disabled={waiting}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) submit(e);
          }}
          placeholder={waiting ? "Waiting for your approval…" : "Ask the agent… (Enter sends, Shift+Enter for a new line)"}
          className="block min-h-[2.5rem] flex-1 resize-none bg-transparent px-2 py-1.5 text-sm text-zinc-100 outline-none placeholder:text-zinc-500 disabled:cursor-not-allowed"
        />
        {running ? (
          <Button variant="danger" onClick={onStop}>
            Stop
          </Button>
        ) : (
          <Button type="submit" variant="primary" disabled={busy || waiting || text.trim() === ""} title={waiting ? "Decide the approval first" : undefined}>
            {busy ? "Sending…" : "Send"}
          </Button>
        )}
      </div>
    </form>
  );
}
