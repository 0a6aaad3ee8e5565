"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import type { InstanceDetail } from "@/components/api/contract";
import { errorMessage, useModexClient } from "@/components/api/modex-client";
import { preview } from "@/components/instances/run-model";
import { stateProblems, useRunPoint } from "@/components/instances/use-run-point";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/**
 * "Fork from here": a new instance that runs on from the point right after one event, with that point's
 * state (editable as JSON, checked against the spec's declared fields here and its state schema on the
 * server) and open delivers, on this spec revision or the newest one.
 */
export function ForkDialog({
  detail,
  eventId,
  label,
  onClose,
  onForked,
}: {
  detail: InstanceDetail;
  eventId: number;
  /** How the event is named on screen ("event 12"). */
  label: string;
  onClose(): void;
  onForked(instanceId: string): void;
}) {
  const client = useModexClient();
  const s = detail.summary;
  const point = useRunPoint(s.instanceId, eventId);
  const [text, setText] = useState<string | null>(null);
  const [revision, setRevision] = useState<"same" | "latest">("same");
  const loaded = point.data?.eventId === eventId ? point.data : undefined;
  useEffect(() => {
    if (loaded && text === null) setText(JSON.stringify(loaded.state, null, 2));
  }, [loaded, text]);
  const original = loaded ? JSON.stringify(loaded.state, null, 2) : null;
  const parsed = useMemo(() => {
    if (text === null) return { ok: false as const, problems: [] };
    try {
      const value: unknown = JSON.parse(text);
      const problems = stateProblems(value, s.stateFields);
      return problems.length > 0 ? { ok: false as const, problems } : { ok: true as const, value };
    } catch (e) {
      return { ok: false as const, problems: [`not JSON: ${(e as Error).message}`] };
    }
  }, [text, s.stateFields]);
  const fork = useMutation({
    mutationFn: (state: unknown) =>
      client.instances.fork.mutate({
        instanceId: s.instanceId,
        eventId,
        ...(text !== original ? { state } : {}),
        ...(revision === "latest" ? { spec: "latest" } : {}),
      }),
    onSuccess: (made) => onForked(made.instanceId),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (parsed.ok) fork.mutate(parsed.value);
  };
  const blocked = loaded?.unforkable ?? null;
  return (
    <Dialog open onClose={onClose} title={`Fork from ${label}`}>
      <form id="fork-form" onSubmit={submit} className="space-y-3" data-testid="fork-dialog">
        <p className="text-xs text-zinc-400">
          A new instance starts with the state and the open delivers this run had right after {label}; nodes that were
          running then run again. This instance is not changed.
        </p>
        {point.isError && <p role="alert" className="text-sm text-rose-300">{errorMessage(point.error)}</p>}
        {!loaded && !point.isError && <p className="text-xs text-zinc-500">Loading the state at {label}…</p>}
        {loaded && (
          <>
            <div className="text-xs text-zinc-400" data-testid="fork-pending">
              <span className="font-medium text-zinc-300">Runs next: </span>
              {loaded.pending.length === 0 ? "the entry node (nothing was delivered yet)" : loaded.pending.map((p) => `${p.target} (from ${p.source}: ${preview(p.content, 40)})`).join(", ")}
            </div>
            <label className="block">
              <span className="text-sm font-medium text-zinc-200">State</span>
              <span className="ml-2 text-xs text-zinc-500">JSON · {loaded.initial ? "as the run started" : `as ${loaded.asOf?.node} left it`}</span>
              <textarea
                aria-label="Fork state"
                rows={10}
                spellCheck={false}
                value={text ?? ""}
                onChange={(e) => setText(e.target.value)}
                className="nokey mt-1.5 block w-full rounded-lg border border-white/15 bg-zinc-950 px-3 py-2 font-mono text-xs outline-none focus:border-indigo-400"
              />
            </label>
            {!parsed.ok && parsed.problems.length > 0 && (
              <ul role="alert" data-testid="fork-state-problems" className="list-inside list-disc text-xs text-rose-300">
                {parsed.problems.map((p) => <li key={p}>{p}</li>)}
              </ul>
            )}
            <fieldset className="flex gap-4 text-xs text-zinc-300">
              <legend className="mb-1 text-sm font-medium text-zinc-200">Spec revision</legend>
              <label className="flex items-center gap-1.5">
                <input type="radio" name="revision" checked={revision === "same"} onChange={() => setRevision("same")} />
                this run&apos;s{s.spec ? ` (${s.spec.name}${s.spec.version ? ` v${s.spec.version}` : ""})` : ""}
              </label>
              <label className="flex items-center gap-1.5">
                <input type="radio" name="revision" checked={revision === "latest"} onChange={() => setRevision("latest")} />
                the newest revision
              </label>
            </fieldset>
            {blocked && <p role="alert" className="text-sm text-amber-300">{blocked}</p>}
          </>
        )}
        {fork.isError && <p role="alert" className="text-sm text-rose-300">{errorMessage(fork.error)}</p>}
      </form>
      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" form="fork-form" variant="primary" disabled={!parsed.ok || !!blocked || fork.isPending}>
          {fork.isPending ? "Starting…" : "Start fork"}
        </Button>
      </div>
    </Dialog>
  );
}
