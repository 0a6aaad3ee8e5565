"use client";

import { useEffect, useRef, useState } from "react";
import { setThemeChoice, THEME_CHOICES, useThemeChoice, type ThemeChoice } from "@/components/shell/theme";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

/** The header's theme button (an icon: the header is full at 1024 px) and its System / Light / Dark menu. */
export function ThemeMenu() {
  const choice = useThemeChoice();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => box.current?.contains(e.target as Node) || setOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  useEffect(() => {
    if (open) box.current?.querySelector<HTMLElement>('[aria-checked="true"]')?.focus();
  }, [open]);
  // A menu's arrow keys: move between its items.
  const onMenuKey = (e: React.KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[role="menuitemradio"]')];
    const at = items.indexOf(document.activeElement as HTMLElement);
    items[(at + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length]?.focus();
  };
  const choose = (c: ThemeChoice) => {
    setThemeChoice(c);
    setOpen(false);
  };
  return (
    <div ref={box} className="relative">
      <button
        type="button"
        data-testid="theme-button"
        onClick={() => setOpen((o) => !o)}
        aria-label={`Theme: ${LABELS[choice]}`}
        title={`Theme: ${LABELS[choice]}`}
        aria-haspopup="menu"
        aria-expanded={open}
        className="inline-flex h-7 w-7 items-center justify-center rounded-md text-zinc-400 hover:bg-white/5 hover:text-zinc-100"
      >
        <ThemeIcon choice={choice} />
      </button>
      {open && (
        <div role="menu" aria-label="Theme" onKeyDown={onMenuKey} className="absolute right-0 top-full z-30 mt-1 w-36 rounded-lg border border-white/10 bg-zinc-900 p-1 shadow-xl">
          {THEME_CHOICES.map((c) => (
            <button
              key={c}
              type="button"
              role="menuitemradio"
              aria-checked={c === choice}
              onClick={() => choose(c)}
              className="flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm text-zinc-300 hover:bg-white/5 hover:text-white focus:bg-white/5 focus:outline-none"
            >
              <ThemeIcon choice={c} />
              <span className="flex-1">{LABELS[c]}</span>
              {c === choice && <span aria-hidden="true" className="text-indigo-300">✓</span>}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

function ThemeIcon({ choice }: { choice: ThemeChoice }) {
  return (
    <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" className="h-4 w-4" aria-hidden="true">
      {choice === "system" && (
        <>
          <rect x="2.5" y="3.5" width="15" height="10" rx="1.5" />
          <path d="M7 17h6M10 13.5V17" />
        </>
      )}
      {choice === "light" && (
        <>
          <circle cx="10" cy="10" r="3.5" />
          <path d="M10 2v2M10 16v2M2 10h2M16 10h2M4.3 4.3l1.4 1.4M14.3 14.3l1.4 1.4M4.3 15.7l1.4-1.4M14.3 5.7l1.4-1.4" />
        </>
      )}
      {choice === "dark" && <path d="M16.5 12.5A7 7 0 0 1 7.5 3.5a7 7 0 1 0 9 9Z" />}
    </svg>
  );
}
