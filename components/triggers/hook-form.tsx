"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FormError } from "@/components/triggers/form-error";
import type { HookInput } from "@/components/triggers/trigger-types";

const field = "w-full rounded-lg border border-white/15 bg-zinc-900 px-2.5 py-1.5 text-sm text-zinc-100";

/** A new webhook: name, spec, how callers prove themselves, body and rate limits. */
export function HookForm({
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
  onSave: (input: HookInput) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState("");
  const [spec, setSpec] = useState("");
  const [auth, setAuth] = useState<"hmac" | "bearer">("hmac");
  const [maxKiB, setMaxKiB] = useState(256);
  const [rate, setRate] = useState(60);
  const submit = () => onSave({ name, spec: spec || specs[0] || "", auth, maxBodyBytes: Math.round(maxKiB * 1024), ratePerMinute: rate });
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="New webhook"
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" disabled={busy || !name} title={!name ? "Name the webhook first" : undefined} onClick={submit}>
            Create webhook
          </Button>
        </>
      }
    >
      <div className="grid grid-cols-2 gap-3 text-xs text-zinc-400">
        <label className="space-y-1">
          <span>Name (the URL is /api/hooks/&lt;name&gt;)</span>
          <input aria-label="Hook name" className={field} value={name} onChange={(e) => setName(e.target.value)} placeholder="github-push" />
        </label>
        <label className="space-y-1">
          <span>Graph</span>
          <select aria-label="Hook graph" className={field} value={spec || specs[0] || ""} onChange={(e) => setSpec(e.target.value)}>
            {specs.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="col-span-2 space-y-1">
          <span>Callers prove themselves with</span>
          <select aria-label="Hook auth" className={field} value={auth} onChange={(e) => setAuth(e.target.value as typeof auth)}>
            {/* Short enough to show whole in the box: the header each sends is in the new hook's secret card. */}
            <option value="hmac">an HMAC-SHA256 signature of the body</option>
            <option value="bearer">a bearer token</option>
          </select>
        </label>
        <label className="space-y-1">
          <span>Largest body (KiB)</span>
          <input aria-label="Body limit" type="number" min={1} className={field} value={maxKiB} onChange={(e) => setMaxKiB(Number(e.target.value))} />
        </label>
        <label className="space-y-1">
          <span>Calls per minute</span>
          <input aria-label="Rate limit" type="number" min={1} className={field} value={rate} onChange={(e) => setRate(Number(e.target.value))} />
        </label>
        <FormError error={error} />
      </div>
    </Dialog>
  );
}
