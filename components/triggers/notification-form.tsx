"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FormError } from "@/components/triggers/form-error";
import type { NotificationInput } from "@/components/triggers/trigger-types";

const field = "w-full rounded-lg border border-white/15 bg-zinc-900 px-2.5 py-1.5 text-sm text-zinc-100";

/** The run states a notification can be told of (the server's NOTIFICATION_EVENTS), with what each means. */
const EVENTS = [
  { event: "completed", label: "completed", hint: "the run reached its end" },
  { event: "failed", label: "failed", hint: "a node's error or the engine's ended it" },
  { event: "stopped", label: "stopped", hint: "someone stopped it" },
  { event: "waiting", label: "waiting", hint: "it waits for a person's input or approval" },
] as const;

/** A new notification: the URL to POST to, which run states, and optionally one graph. */
export function NotificationForm({
  open,
  specs,
  busy,
  error,
  onSave,
  onClose,
}: {
  open: boolean;
  specs: string[];
  busy: boolean;
  error: string | null;
  onSave: (input: NotificationInput) => void;
  onClose: () => void;
}) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["failed", "waiting"]);
  const [graph, setGraph] = useState("");
  const toggle = (e: string) => setEvents((now) => (now.includes(e) ? now.filter((x) => x !== e) : [...now, e]));
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New notification"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button
            variant="primary"
            disabled={busy || !url.trim() || events.length === 0}
            title={!url.trim() ? "Give the URL first" : events.length === 0 ? "Choose an event first" : undefined}
            onClick={() => onSave({ url: url.trim(), events, graph: graph || null })}>
            Create notification
          </Button>
        </>
      }
    >
      <div className="space-y-3 text-xs text-zinc-400">
        <label className="block space-y-1">
          <span>URL (Modex POSTs JSON here, signed with a secret shown once)</span>
          <input aria-label="Notification URL" className={field} value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/modex" />
        </label>
        <fieldset className="space-y-1">
          <legend className="mb-1">When a run</legend>
          {EVENTS.map((e) => (
            <label key={e.event} className="flex items-center gap-2 text-zinc-200">
              <input type="checkbox" aria-label={`Event ${e.event}`} checked={events.includes(e.event)} onChange={() => toggle(e.event)} />
              <span className="font-medium">{e.label}</span>
              <span className="text-zinc-500">{e.hint}</span>
            </label>
          ))}
        </fieldset>
        <label className="block space-y-1">
          <span>Graph</span>
          <select aria-label="Notification graph" className={field} value={graph} onChange={(e) => setGraph(e.target.value)}>
            <option value="">Every graph</option>
            {specs.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <FormError error={error} />
      </div>
    </Dialog>
  );
}
