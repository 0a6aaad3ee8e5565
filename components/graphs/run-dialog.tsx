"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** Reads the input box: JSON when it parses as JSON, otherwise the text itself. */
export function parseInput(text: string): unknown {
  const t = text.trim();
  if (t === "") return null;
  try {
    return JSON.parse(t);
  } catch {
    return text;
  }
}

/** Asks for the run's input, starts an instance of the saved spec, and goes to it. */
export function RunDialog({ open, onClose, specRef }: { open: boolean; onClose: () => void; specRef: string }) {
  const client = useModexClient();
  const router = useRouter();
  const [input, setInput] = useState("");
  const create = useMutation({
    mutationFn: () => client.instances.create.mutate({ spec: specRef, input: parseInput(input) }),
    onSuccess: ({ instanceId }) => router.push(`/instances/${encodeURIComponent(instanceId)}`),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate();
  }

  return (
    <Dialog open={open} onClose={onClose} title={`Run ${specRef}`}>
      <form id="run-form" onSubmit={submit}>
        <label className="block">
          <span className="text-sm font-medium text-zinc-200">Input</span>
          <span className="ml-2 text-xs text-zinc-500">JSON, or plain text</span>
          <textarea
            autoFocus
            rows={6}
            value={input}
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) submit(e);
            }}
            placeholder={'"world"  or  {"topic": "durable graphs"}'}
            className="mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 font-mono text-sm outline-none focus:border-indigo-400"
          />
        </label>
        {create.isError && <p role="alert" className="mt-3 text-sm text-rose-300">Could not start: {errorMessage(create.error)}</p>}
      </form>
      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" form="run-form" variant="primary" disabled={create.isPending}>
          {create.isPending ? "Starting…" : "Start run"}
        </Button>
      </div>
    </Dialog>
  );
}
