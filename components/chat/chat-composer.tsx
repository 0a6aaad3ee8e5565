"use client";

import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/button";

/** The message box: Enter sends, Shift+Enter adds a line; while the agent answers, Stop cancels it. */
export function ChatComposer({ running, busy, onSend, onStop }: { running: boolean; busy: boolean; onSend(text: string): void; onStop(): void }) {
  const [text, setText] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (running || busy || text.trim() === "") return;
    onSend(text.trim());
    setText("");
  };
  return (
    <form onSubmit={submit} className="border-t border-white/10 bg-zinc-950 px-6 py-4">
      <div className="mx-auto flex max-w-3xl items-end gap-2 rounded-xl border border-white/15 bg-zinc-900 p-2 focus-within:border-indigo-400/60">
        <textarea
          aria-label="Message"
          rows={2}
          value={text}
          autoFocus
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) submit(e);
          }}
          placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line)"
          className="block min-h-[2.5rem] flex-1 resize-none bg-transparent px-2 py-1.5 text-sm text-zinc-100 outline-none placeholder:text-zinc-500"
        />
        {running ? (
          <Button variant="danger" onClick={onStop}>
            Stop
          </Button>
        ) : (
          <Button type="submit" variant="primary" disabled={busy || text.trim() === ""}>
            {busy ? "Sending…" : "Send"}
          </Button>
        )}
      </div>
    </form>
  );
}
