"use client";

import { type FormEvent, useState } from "react";
import { parseInput } from "@/components/graphs/run-dialog";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** New input to a finished instance: it runs again as the next version. */
export function ReinvokeDialog({ open, onClose, onSubmit, busy, error, nextVersion }: { open: boolean; onClose(): void; onSubmit(input: unknown): void; busy: boolean; error: string | null; nextVersion: number }) {
  const [input, setInput] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(parseInput(input));
  };
  return (
    <Dialog open={open} onClose={onClose} title={`Re-invoke as version ${nextVersion}`}>
      <form id="reinvoke-form" onSubmit={submit}>
        <label className="block">
          <span className="text-sm font-medium text-zinc-200">New input</span>
          <span className="ml-2 text-xs text-zinc-500">JSON, or plain text</span>
          <textarea autoFocus rows={5} value={input} onChange={(e) => setInput(e.target.value)} className="mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 font-mono text-sm outline-none focus:border-indigo-400" />
        </label>
        <p className="mt-2 text-xs text-zinc-500">Earlier versions stay viewable from the version switcher.</p>
        {error && <p role="alert" className="mt-2 text-sm text-rose-300">{error}</p>}
      </form>
      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" form="reinvoke-form" variant="primary" disabled={busy}>
          {busy ? "Starting…" : "Run again"}
        </Button>
      </div>
    </Dialog>
  );
}
