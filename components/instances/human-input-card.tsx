"use client";

import { type FormEvent, useState } from "react";
import type { HumanInputRequest, InstanceDetail } from "@/components/api/contract";
import { preview } from "@/components/instances/run-model";
import { parseInput } from "@/components/graphs/run-dialog";
import { Button } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { decidedBy } from "@/components/instances/decided-by";
import { DecisionCardFrame } from "@/components/instances/decision-card-frame";
import { useViewerSession } from "@/components/auth/viewer-session";

export type AnswerRecord = InstanceDetail["summary"]["answers"][number];

/** What led to the question, as written: a string as it is, anything else as JSON. */
function contextText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

/**
 * A waiting human-input node: its prompt, the context that led here, and an answer box. After the
 * answer it says who answered and when. `queued` (a cluster): the answer was accepted but no worker has
 * started the run yet, so the card says the answer is sent and waits for a worker instead of asking
 * again (a second answer would be refused).
 */
export function HumanInputCard({
  instanceId,
  request,
  answered,
  queued = false,
  onAnswer,
  busy,
  error,
}: {
  instanceId: string;
  request: HumanInputRequest | null;
  answered: AnswerRecord | null;
  queued?: boolean;
  onAnswer(value: unknown): void;
  busy: boolean;
  error: string | null;
}) {
  const [text, setText] = useState("");
  const viewer = useViewerSession();
  if (!request && !answered) return null;

  if (answered && (!request || queued)) {
    return (
      <DecisionCardFrame
        label="Human input"
        testId="human-input-card"
        state={queued ? "queued" : "answered"}
        title={queued ? "Answer sent, waiting for a worker" : `Human input · ${answered.node}`}
        queuedNote="No worker has started the run yet: it resumes with this answer as soon as one is free."
      >
        {/* The server's record of the answer (any tab, after a reload, however it came), with whose sign-in sent it. */}
        <p className="mt-1.5 text-sm text-zinc-200" data-testid="answered-value">
          Answered: <span className="break-words font-mono text-zinc-100">{preview(answered.value, 120)}</span>
        </p>
        <p className="mt-1 text-xs text-zinc-400">
          by <span className="font-semibold text-zinc-300" data-testid="answered-by">{decidedBy(answered, viewer)}</span> at <LocalTime at={answered.at} />
        </p>
      </DecisionCardFrame>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() !== "") onAnswer(parseInput(text));
  };
  const context = Array.isArray(request?.context) ? request.context : request?.context !== undefined ? [request.context] : [];

  return (
    <DecisionCardFrame label="Human input" testId="human-input-card" state="waiting" title={`Waiting for you · ${request?.node ?? ""}`}>
      <p className="mt-2 text-sm font-medium text-zinc-100" data-testid="human-input-prompt">
        {request?.prompt ?? "This node waits for input."}
      </p>
      {context.length > 0 && (
        // Whole and wrapped (scrolling when long): the person answering needs what led here, and cut to
        // one line it lost the end of the very request being approved.
        <p data-testid="human-input-context" className="mt-1 max-h-32 overflow-y-auto whitespace-pre-wrap break-words font-mono text-xs text-zinc-400">
          <span className="text-zinc-500">context: </span>
          {contextText(context.length === 1 ? context[0] : context)}
        </p>
      )}
      <form onSubmit={submit} className="mt-3">
        <textarea
          aria-label="Your answer"
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) submit(e);
          }}
          placeholder="Type your answer (Enter sends, Shift+Enter for a new line)"
          className="block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 text-sm outline-none focus:border-amber-400/60"
        />
        {error && <p role="alert" className="mt-2 text-xs text-rose-300">{error}</p>}
        <div className="mt-2 flex justify-end">
          <Button type="submit" size="sm" variant="primary" disabled={busy || text.trim() === ""}>
            {busy ? "Sending…" : "Answer and resume"}
          </Button>
        </div>
      </form>
    </DecisionCardFrame>
  );
}
