"use client";

import { useEffect, useState } from "react";

/**
 * Copies a value (an id) to the clipboard and says so for a moment. `navigator.clipboard` needs a
 * secure context (https or localhost); elsewhere the value is selected in a prompt-free fallback.
 */
export function CopyButton({ value, label = "Copy", className = "" }: { value: string; label?: string; className?: string }) {
  const [done, setDone] = useState<"copied" | "failed" | null>(null);
  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => setDone(null), 1500);
    return () => clearTimeout(t);
  }, [done]);

  async function copy() {
    try {
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(value);
      else fallbackCopy(value);
      setDone("copied");
    } catch {
      setDone("failed");
    }
  }

  return (
    <button
      type="button"
      onClick={() => void copy()}
      title={`${label}: ${value}`}
      aria-label={`${label} ${value}`}
      data-testid="copy-button"
      className={`inline-flex items-center rounded border border-white/10 px-1.5 py-0.5 text-[11px] font-medium text-zinc-400 hover:bg-white/5 hover:text-zinc-100 ${className}`}
    >
      {done === "copied" ? "Copied" : done === "failed" ? "Copy failed" : label}
    </button>
  );
}

function fallbackCopy(value: string): void {
  const area = document.createElement("textarea");
  area.value = value;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}
