"use client";

import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/button";

type BusyInputMode = "INTERRUPT" | "QUEUE" | "STEER";

/** What sending now will do, shown above the box while a turn runs (the agent's busy-input mode). */
const BUSY_HINT: Record<BusyInputMode, string> = {
  QUEUE: "A turn is running: a message you send now is queued and runs when it ends.",
  INTERRUPT: "A turn is running: a message you send now stops it (keeping what streamed) and starts a new turn.",
  STEER: "A turn is running: a message you send now joins it before its next model call.",
};
const BUSY_LABEL: Record<BusyInputMode, string> = { QUEUE: "Queue", INTERRUPT: "Interrupt", STEER: "Steer" };

/**
 * The message box: Enter sends, Shift+Enter adds a line. While the agent answers, Stop cancels it and a
 * new message follows the agent's busy-input mode (the box says which; a select beside it picks another
 * mode for the next message only); while the turn waits for an approval, a message is queued behind it.
 * A line starting with `/` is a command the server reads (`/help` lists them).
 */
export function ChatComposer({
  running,
  waiting,
  busy,
  mode,
  onSend,
  onStop,
}: {
  running: boolean;
  waiting: boolean;
  busy: boolean;
  mode: BusyInputMode;
  /** `busyInput`: the mode picked for this message when it differs from the agent's. */
  onSend(text: string, busyInput?: BusyInputMode): void;
  onStop(): void;
}) {
  const [text, setText] = useState("");
  const [picked, setPicked] = useState<BusyInputMode | null>(null);
  const command = text.trimStart().startsWith("/");
  const choosing = running && !waiting && !command;
  const effective = picked ?? mode;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy || text.trim() === "") return;
    onSend(text.trim(), choosing && picked && picked !== mode ? picked : undefined);
    setText("");
    setPicked(null);
  };
  const hint = command
    ? "A command: the server runs it (/stop, /approve [reason], /deny [reason], /new, /help)."
    : waiting
      ? "The agent is waiting for your approval: approve or deny the call above (or /approve, /deny); a message now is queued behind it."
      : running
        ? BUSY_HINT[effective]
        : null;
  return (
    <form onSubmit={submit} className="border-t border-white/10 bg-zinc-950 px-6 py-4">
      {hint && (
        <p
          data-testid={waiting && !command ? "chat-waiting" : "chat-busy-hint"}
          data-mode={choosing ? effective : undefined}
          role="status"
          className={`mx-auto mb-2 flex max-w-3xl items-center gap-2 text-xs ${waiting && !command ? "text-amber-200" : "text-zinc-400"}`}
        >
          <span className={`h-1.5 w-1.5 shrink-0 rounded-full ${waiting && !command ? "bg-amber-300" : "bg-indigo-400"}`} aria-hidden="true" />
          <span className="flex-1">{hint}</span>
          {choosing && (
            <label className="flex shrink-0 items-center gap-1 text-zinc-500">
              this message:
              <select
                data-testid="chat-busy-mode"
                aria-label="What a message sent now does"
                value={effective}
                onChange={(e) => setPicked(e.target.value as BusyInputMode)}
                className="rounded border border-white/15 bg-zinc-900 px-1 py-0.5 text-xs text-zinc-200"
              >
                {(Object.keys(BUSY_LABEL) as BusyInputMode[]).map((m) => (
                  <option key={m} value={m}>
                    {BUSY_LABEL[m]}
                    {m === mode ? " (agent's default)" : ""}
                  </option>
                ))}
              </select>
            </label>
          )}
        </p>
      )}
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
          placeholder={waiting ? "Waiting for your approval… (/approve, /deny)" : "Ask the agent… (Enter sends, Shift+Enter for a new line, /help for commands)"}
          className="block min-h-[2.5rem] flex-1 resize-none bg-transparent px-2 py-1.5 text-sm text-zinc-100 outline-none placeholder:text-zinc-500"
        />
        {(running || waiting) && (
          <Button variant="danger" onClick={onStop}>
            Stop
          </Button>
        )}
        <Button type="submit" variant="primary" disabled={busy || text.trim() === ""}>
          {busy ? "Sending…" : (running || waiting) && !command ? (waiting ? "Queue" : BUSY_LABEL[effective]) : "Send"}
        </Button>
      </div>
    </form>
  );
}
