"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FormError } from "@/components/triggers/form-error";
import type { ScheduleInput } from "@/components/triggers/trigger-types";

const field = "w-full rounded-lg border border-white/15 bg-zinc-900 px-2.5 py-1.5 text-sm text-zinc-100";

/** A new schedule made in the app: name, graph, cron, time zone, input (JSON or text), policies. */
export function ScheduleForm({
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
  onSave: (input: ScheduleInput) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState("");
  const [spec, setSpec] = useState("");
  const [cron, setCron] = useState("0 * * * *");
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
  const [input, setInput] = useState("");
  const [overlap, setOverlap] = useState<NonNullable<ScheduleInput["overlap"]>>("skip");
  const [missed, setMissed] = useState<NonNullable<ScheduleInput["missed"]>>("skip");
  const submit = () => onSave({ name, spec: spec || specs[0] || "", cron, timezone, input: parseValue(input), overlap, missed });
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New schedule"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" disabled={busy || !name || !cron} title={!name ? "Name the schedule first" : !cron ? "Write its cron first" : undefined} onClick={submit}>
            Save schedule
          </Button>
        </>
      }
    >
      <div className="grid grid-cols-2 gap-3 text-xs text-zinc-400">
        <label className="space-y-1">
          <span>Name</span>
          <input aria-label="Schedule name" className={field} value={name} onChange={(e) => setName(e.target.value)} placeholder="nightly-report" />
        </label>
        <label className="space-y-1">
          <span>Graph</span>
          <select aria-label="Schedule graph" className={field} value={spec || specs[0] || ""} onChange={(e) => setSpec(e.target.value)}>
            {specs.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        {/* The field's format under it, not in its label: a two-line label put this box below the time zone's. */}
        <label className="space-y-1">
          <span>Cron</span>
          <input aria-label="Cron expression" aria-describedby="schedule-cron-format" className={`${field} font-mono`} value={cron} onChange={(e) => setCron(e.target.value)} />
          <span id="schedule-cron-format" className="block text-[11px] text-zinc-500">minute hour day month weekday (6 fields: seconds first)</span>
        </label>
        <label className="space-y-1">
          <span>Time zone</span>
          <input aria-label="Time zone" className={field} value={timezone} onChange={(e) => setTimezone(e.target.value)} />
        </label>
        <label className="col-span-2 space-y-1">
          <span>Input (JSON, or text)</span>
          <input aria-label="Schedule input" className={`${field} font-mono`} value={input} onChange={(e) => setInput(e.target.value)} />
        </label>
        <label className="space-y-1">
          <span>While the previous run is still going</span>
          <select aria-label="Overlap policy" className={field} value={overlap} onChange={(e) => setOverlap(e.target.value as typeof overlap)}>
            <option value="skip">skip this fire</option>
            <option value="allow">start another</option>
            <option value="cancel_previous">stop it, then start</option>
          </select>
        </label>
        <label className="space-y-1">
          <span>Fires missed while no server ran</span>
          <select aria-label="Missed policy" className={field} value={missed} onChange={(e) => setMissed(e.target.value as typeof missed)}>
            <option value="skip">skip them</option>
            <option value="run_once">run once at start-up</option>
          </select>
        </label>
        <FormError error={error} />
      </div>
    </Dialog>
  );
}

/** JSON when it parses, else the text itself; empty: no input. */
function parseValue(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
