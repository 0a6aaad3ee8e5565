"use client";

import { useRef } from "react";

export interface PlainSelection {
  /** 1-based, as Monaco counts. */
  line: number;
  column: number;
}

/**
 * The spec's text as a plain text area, in the server's HTML: readable and editable from the first
 * paint, while Monaco (most of the page's weight: a second or more of a core to load) gets ready. The
 * editor page swaps Monaco in when it is, carrying over the text and the cursor. It looks like Monaco's
 * view (same font, line height, gutter), without highlighting, completion or markers.
 */
export function PlainYamlEditor({ value, onChange, selectionRef }: { value: string; onChange(text: string): void; selectionRef: { current: PlainSelection | null } }) {
  const gutter = useRef<HTMLPreElement>(null);
  const lines = value.split("\n").length;
  const remember = (el: HTMLTextAreaElement) => {
    const before = el.value.slice(0, el.selectionStart).split("\n");
    selectionRef.current = { line: before.length, column: before[before.length - 1].length + 1 };
  };
  return (
    <div className="nokey flex h-full w-full overflow-hidden font-mono text-[13px] leading-5" data-testid="yaml-plain">
      <pre ref={gutter} aria-hidden="true" className="w-[52px] shrink-0 overflow-hidden pr-3 pt-3 text-right text-zinc-600 select-none">
        {Array.from({ length: lines }, (_, i) => i + 1).join("\n")}
      </pre>
      <textarea
        aria-label="YAML (plain text while the editor loads)"
        value={value}
        spellCheck={false}
        wrap="off"
        onChange={(e) => {
          onChange(e.target.value);
          remember(e.target);
        }}
        onSelect={(e) => remember(e.currentTarget)}
        onScroll={(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
        }}
        className="h-full min-w-0 flex-1 resize-none bg-transparent pl-3 pt-3 text-zinc-200 outline-none"
      />
    </div>
  );
}
