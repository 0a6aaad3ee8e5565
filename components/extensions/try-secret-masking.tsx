"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useModexClient } from "@/components/api/modex-client";
import { Button } from "@/components/ui/button";
import { SECRET_MASKING_PREVIEW_MAX_BYTES } from "@/shared/secret-masking-preview";

/** Whether secret_masking can be tried: configured and on, configured but turned off, or not configured. */
export type MaskingState = "on" | "off" | "absent";

const YAML = "builtins:\n  secret_masking:\n    patterns: ['sk-[A-Za-z0-9_-]{16,}', 'ACME-[0-9]{6}']";

/**
 * Paste a text, see it as the running secret_masking would pass it on (its live patterns), with how many
 * secrets it hid. The server stores, logs and counts nothing of it; without secret_masking on, says how.
 */
export function TrySecretMasking({ state }: { state: MaskingState }) {
  return (
    <section data-testid="try-secret-masking" data-state={state} aria-labelledby="try-masking-title" className="mt-10">
      <h2 id="try-masking-title" className="text-lg font-semibold text-white">
        Try secret masking
      </h2>
      {state === "on" ? (
        <MaskingForm />
      ) : (
        <p data-testid="masking-unavailable" className="mt-1 max-w-3xl text-sm text-zinc-400">
          {state === "off" ? (
            <>secret_masking is turned off: switch it on in the table above to try it here.</>
          ) : (
            <>
              secret_masking is not configured. Add <code className="text-zinc-300">secret_masking: {"{}"}</code> under{" "}
              <code className="text-zinc-300">builtins:</code> in extensions.yml and restart the server.
            </>
          )}
        </p>
      )}
      <p className="mt-3 max-w-3xl text-xs text-zinc-500">
        To add a pattern, list it (a regular expression) under secret_masking&rsquo;s <code>patterns</code> in extensions.yml and restart. The list
        replaces the defaults (common API keys and tokens), so keep the ones you want, e.g.:
      </p>
      <pre className="mt-1 max-w-3xl overflow-x-auto rounded-lg bg-white/[0.03] px-3 py-2 font-mono text-[11px] text-zinc-400">{YAML}</pre>
    </section>
  );
}

function MaskingForm() {
  const client = useModexClient();
  const [text, setText] = useState("");
  const preview = useMutation({ mutationFn: (t: string) => client.extensions.previewSecretMasking.mutate({ text: t }) });
  const bytes = new TextEncoder().encode(text).length;
  const tooLarge = bytes > SECRET_MASKING_PREVIEW_MAX_BYTES;
  return (
    <form
      className="mt-1 max-w-3xl"
      onSubmit={(ev) => {
        ev.preventDefault();
        if (!tooLarge) preview.mutate(text);
      }}
    >
      <p className="text-sm text-zinc-400">
        Paste text to see it as the chat and agents would pass it on. Nothing is stored, logged or counted.
      </p>
      <label htmlFor="mask-text" className="sr-only">
        Text to mask
      </label>
      <textarea
        id="mask-text"
        value={text}
        onChange={(ev) => setText(ev.target.value)}
        rows={4}
        spellCheck={false}
        placeholder="e.g. my key is sk-live0123456789abcdef"
        className="mt-2 block w-full rounded-lg border border-white/10 bg-white/[0.03] px-3 py-2 font-mono text-xs text-zinc-100 placeholder:text-zinc-600 focus:border-indigo-400 focus:outline-none"
      />
      <div className="mt-2 flex items-center gap-3">
        <Button type="submit" size="sm" variant="primary" disabled={text === "" || tooLarge || preview.isPending}>
          {preview.isPending ? "Masking…" : "Mask"}
        </Button>
        <span className={`text-xs tabular-nums ${tooLarge ? "text-rose-300" : "text-zinc-500"}`}>
          {tooLarge ? `${bytes.toLocaleString()} bytes: at most 64 KiB` : `up to 64 KiB`}
        </span>
      </div>
      {preview.isError && (
        <p role="alert" className="mt-2 text-xs text-rose-300">
          {preview.error.message}
        </p>
      )}
      {preview.data && (
        <div className="mt-3">
          <p data-testid="mask-count" className="text-xs text-zinc-400">
            {preview.data.masks} {preview.data.masks === 1 ? "secret" : "secrets"} masked (by {preview.data.patterns} {preview.data.patterns === 1 ? "pattern" : "patterns"})
          </p>
          <pre data-testid="masked-text" className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-lg border border-white/10 px-3 py-2 font-mono text-xs text-zinc-100">
            {preview.data.masked}
          </pre>
        </div>
      )}
    </form>
  );
}
