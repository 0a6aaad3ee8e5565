"use client";

import { type FormEvent, useState } from "react";
import { parseInput } from "@/components/graphs/run-dialog";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** DELIVER_TO_NODE: hand a node a value from outside the graph. */
export function DeliverDialog({
  open,
  onClose,
  nodes,
  initialNode,
  onDeliver,
  busy,
  error,
}: {
  open: boolean;
  onClose(): void;
  nodes: readonly string[];
  initialNode: string | null;
  onDeliver(node: string, content: unknown): void;
  busy: boolean;
  error: string | null;
}) {
  const [node, setNode] = useState(initialNode ?? nodes[0] ?? "");
  const [content, setContent] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (node) onDeliver(node, parseInput(content));
  };
  return (
    <Dialog open={open} onClose={onClose} title="Deliver to a node">
      <form id="deliver-form" onSubmit={submit} className="space-y-4">
        <p className="text-xs leading-5 text-zinc-400">
          The value is stored as a delivery to the node. A running instance picks it up now, a paused one when it resumes, a finished one in a new run.
        </p>
        <label className="block">
          <span className="text-sm font-medium text-zinc-200">Node</span>
          <select value={node} onChange={(e) => setNode(e.target.value)} className="mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 text-sm">
            {nodes.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label className="block">
          <span className="text-sm font-medium text-zinc-200">Content</span>
          <span className="ml-2 text-xs text-zinc-500">JSON, or plain text</span>
          <textarea rows={4} value={content} onChange={(e) => setContent(e.target.value)} className="mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 font-mono text-sm outline-none focus:border-indigo-400" />
        </label>
        {error && <p role="alert" className="text-sm text-rose-300">{error}</p>}
      </form>
      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" form="deliver-form" variant="primary" disabled={busy || !node}>
          {busy ? "Delivering…" : "Deliver"}
        </Button>
      </div>
    </Dialog>
  );
}
