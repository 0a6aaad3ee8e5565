"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { useModexClient } from "@/components/api/modex-client";
import { useHydrated } from "@/components/ui/use-hydrated";
import { actionItems, agentItems, chatItems, graphItems, graphRunListItems, pageItems, PER_GROUP, runItems, type PaletteAction, type PaletteItem } from "@/components/shell/palette-items";
import { SHOW_SHORTCUTS_EVENT } from "@/components/shell/shortcuts";
import { setThemeChoice } from "@/components/shell/theme";

/** The server's searches (runs, chats) start once typing pauses this long. */
const SEARCH_AFTER_MS = 150;
/** The longest search the server takes (instances.page's and chat.list's `q`). */
const MAX_QUERY = 200;

/** ⌘K on macOS, Ctrl+K elsewhere, except inside the YAML editor, where Ctrl+K starts Monaco's own chords. */
function isPaletteShortcut(e: KeyboardEvent): boolean {
  if (e.key.toLowerCase() !== "k" || !(e.metaKey || e.ctrlKey) || e.altKey || e.shiftKey) return false;
  return !(e.target instanceof Element && e.target.closest(".monaco-editor"));
}

/**
 * The header's search button and the palette it opens (also on ⌘K / Ctrl+K from any page): type to
 * find a page, a graph, a run (by id or input), a chat (by title or message), an agent or an action
 * (the theme, the shortcuts); arrows and Enter open it.
 */
export function CommandPalette() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isPaletteShortcut(e)) return;
      e.preventDefault();
      setOpen((o) => !o);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  // Read after hydration only: the server renders "Ctrl", and a Mac's first render must agree with it.
  const mac = useHydrated() && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
  return (
    <>
      <button
        type="button"
        data-testid="palette-open"
        onClick={() => setOpen(true)}
        title={`Search pages, graphs, runs, chats and agents (${mac ? "⌘K" : "Ctrl+K"})`}
        aria-label="Search"
        aria-keyshortcuts="Control+K Meta+K"
        className="inline-flex items-center gap-2 rounded-md border border-white/10 bg-white/[0.03] px-2 py-1 text-xs text-zinc-400 hover:border-white/20 hover:text-zinc-100"
      >
        <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="2" className="h-3.5 w-3.5" aria-hidden="true">
          <circle cx="8.5" cy="8.5" r="5.5" />
          <path d="m13 13 4 4" strokeLinecap="round" />
        </svg>
        <kbd className="hidden font-sans text-[11px] text-zinc-500 xl:inline">{mac ? "⌘K" : "Ctrl K"}</kbd>
      </button>
      {open && <PaletteDialog onClose={() => setOpen(false)} />}
    </>
  );
}

function PaletteDialog({ onClose }: { onClose: () => void }) {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  // The highlighted entry, by key: results that arrive later (a run, a chat) may be listed above it,
  // and Enter must still open what the user saw highlighted.
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const items = usePaletteItems(text);
  const found = items.list.findIndex((item) => item.key === activeKey);
  const active = found < 0 ? 0 : found;
  const setActive = (i: number) => setActiveKey(items.list[i]?.key ?? null);

  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  useEffect(() => setActiveKey(null), [text]);
  const firstKey = items.list[0]?.key ?? null;
  useEffect(() => {
    if (found < 0 && firstKey !== null) setActiveKey(firstKey);
  }, [found, firstKey]);
  useEffect(() => {
    document.getElementById(`palette-item-${active}`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  const go = (item: PaletteItem | undefined) => {
    if (!item) return;
    onClose();
    if (item.action) runAction(item.action);
    else if (item.href) router.push(item.href);
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const step = e.key === "ArrowDown" ? 1 : -1;
      if (items.list.length > 0) setActive((active + step + items.list.length) % items.list.length);
    } else if (e.key === "Enter") {
      e.preventDefault();
      go(items.list[active]);
    }
  };

  let index = -1;
  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      onClick={(e) => e.target === dialog.current && onClose()}
      aria-label="Search Modex"
      data-testid="palette"
      className="mx-auto mt-[12vh] w-full max-w-xl rounded-xl border border-white/10 bg-zinc-900 p-0 text-zinc-100 shadow-2xl backdrop:bg-black/60 backdrop:backdrop-blur-sm"
    >
      <div className="flex max-h-[70vh] flex-col" onKeyDown={onKeyDown}>
        <input
          autoFocus
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Search pages, graphs, runs, chats, agents…"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={items.list.length > 0 ? `palette-item-${active}` : undefined}
          aria-label="Search"
          className="w-full border-b border-white/10 bg-transparent px-4 py-3 text-sm text-white placeholder:text-zinc-500 focus:outline-none"
        />
        <div id="palette-list" role="listbox" aria-label="Results" className="min-h-0 flex-1 overflow-auto py-1">
          {items.groups.map(({ group, entries }) => (
            <div key={group} role="group" aria-label={group}>
              <div className="px-4 pb-1 pt-2 text-[11px] font-semibold uppercase tracking-wide text-zinc-500">{group}</div>
              {entries.map((item) => {
                index += 1;
                const i = index;
                return (
                  <div
                    key={item.key}
                    id={`palette-item-${i}`}
                    role="option"
                    aria-selected={i === active}
                    onMouseMove={() => setActive(i)}
                    onClick={() => go(item)}
                    className={`mx-1 flex cursor-pointer items-baseline gap-3 rounded-md px-3 py-1.5 text-sm ${i === active ? "bg-indigo-500/20 text-white" : "text-zinc-300"}`}
                  >
                    <span className="min-w-0 truncate font-medium">{item.label}</span>
                    {item.detail && <span className="min-w-0 flex-1 truncate text-xs text-zinc-500">{item.detail}</span>}
                  </div>
                );
              })}
            </div>
          ))}
          {items.list.length === 0 && (
            <p className="px-4 py-6 text-center text-sm text-zinc-400">{items.searching ? "Searching…" : `Nothing matches “${text.trim()}”.`}</p>
          )}
        </div>
        <div className="flex gap-4 border-t border-white/10 px-4 py-2 text-[11px] text-zinc-500">
          <span>↑↓ to move</span>
          <span>Enter to open</span>
          <span>Esc to close</span>
          {items.error && <span className="ml-auto text-amber-300">Some results could not be loaded: {items.error}</span>}
        </div>
      </div>
    </dialog>
  );
}

function runAction(action: PaletteAction): void {
  if (action === "shortcuts") window.dispatchEvent(new Event(SHOW_SHORTCUTS_EVENT));
  else setThemeChoice(action === "theme:light" ? "light" : action === "theme:dark" ? "dark" : "system");
}

/** The palette's items for the text typed: pages at once, graphs and agents from cached lists, runs and chats from the server's searches. */
function usePaletteItems(text: string) {
  const client = useModexClient();
  const q = text.trim().slice(0, MAX_QUERY);
  const [searched, setSearched] = useState(q);
  useEffect(() => {
    const id = setTimeout(() => setSearched(q), SEARCH_AFTER_MS);
    return () => clearTimeout(id);
  }, [q]);

  const specs = useQuery({ queryKey: ["specs", "list"], queryFn: () => client.specs.list.query(), staleTime: 10_000 });
  const agents = useQuery({ queryKey: ["agents", "list"], queryFn: () => client.agents.list.query(), staleTime: 10_000 });
  const runs = useQuery({
    queryKey: ["palette", "runs", searched],
    queryFn: () => client.instances.page.query({ q: searched, limit: PER_GROUP }),
    enabled: searched.length > 0,
    placeholderData: keepPreviousData,
  });
  const chats = useQuery({
    queryKey: ["palette", "chats", searched],
    queryFn: () => client.chat.list.query({ q: searched }),
    enabled: searched.length > 0,
    placeholderData: keepPreviousData,
  });

  return useMemo(() => {
    const groups: { group: string; entries: PaletteItem[] }[] = [];
    const add = (group: string, entries: PaletteItem[]) => entries.length > 0 && groups.push({ group, entries });
    if (q) {
      add("Graphs", graphItems(specs.data ?? [], q));
      add("Runs", [...graphRunListItems(specs.data ?? [], q), ...(searched ? runItems(runs.data?.items ?? []) : [])]);
      add("Chats", searched ? chatItems(chats.data ?? []) : []);
      add("Agents", agentItems(agents.data ?? [], q));
    }
    add("Pages", pageItems(q));
    add("Actions", actionItems(q));
    const failed = [specs, agents, runs, chats].find((r) => r.isError);
    return {
      groups,
      list: groups.flatMap((g) => g.entries),
      searching: q !== searched || runs.isFetching || chats.isFetching,
      error: failed?.error ? failed.error.message : null,
    };
  }, [q, searched, specs.data, agents.data, runs.data, chats.data, runs.isFetching, chats.isFetching, specs, agents, runs, chats]);
}
