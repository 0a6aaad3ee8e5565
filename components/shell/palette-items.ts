/**
 * What the command palette (⌘K / Ctrl+K) offers: the app's pages and actions (the theme, the keyboard
 * shortcuts), and the graphs, runs, chats and agents a search matches. Pure, so the ranking is tested without a browser (palette-items.test.ts).
 */

export type PaletteGroup = "Pages" | "Graphs" | "Runs" | "Chats" | "Agents" | "Actions";

/** What an action item does instead of opening a page (command-palette.tsx carries it out). */
export type PaletteAction = "theme:system" | "theme:light" | "theme:dark" | "shortcuts";

export interface PaletteItem {
  /** Unique across the palette: the group and what it opens. */
  key: string;
  group: PaletteGroup;
  label: string;
  /** A second, dimmer line: a description, a status, an agent. */
  detail?: string;
  /** The page it opens; an action item has none. */
  href?: string;
  action?: PaletteAction;
}

/** How many items each searched group shows: enough to pick from, few enough to read at a glance. */
export const PER_GROUP = 6;

/** Every page of the app, with the words a person might type for it. */
export const PAGES: readonly { label: string; href: string; words: string }[] = [
  { label: "Home", href: "/", words: "start overview" },
  { label: "Graphs", href: "/graphs", words: "specs yaml editor workflows" },
  { label: "New graph", href: "/graphs/new", words: "create spec template" },
  { label: "Instances", href: "/instances", words: "runs executions" },
  { label: "Waiting for you", href: "/instances?status=waiting", words: "approvals input human paused runs" },
  { label: "Failed runs", href: "/instances?status=failed", words: "errors instances" },
  { label: "Agents", href: "/agents", words: "react tools prompts models" },
  { label: "Extensions", href: "/extensions", words: "plugins hooks" },
  { label: "Chat", href: "/chat", words: "talk conversation assistant" },
  { label: "Traces", href: "/traces", words: "spans turns waterfall tokens" },
  { label: "Triggers", href: "/triggers", words: "webhooks schedules cron" },
  { label: "Cluster", href: "/cluster", words: "workers postgresql leases" },
];

/** The palette's actions, with the words a person might type for them. */
export const ACTIONS: readonly { label: string; action: PaletteAction; words: string }[] = [
  { label: "Theme: System", action: "theme:system", words: "appearance colour color mode auto os preference" },
  { label: "Theme: Light", action: "theme:light", words: "appearance colour color mode day bright" },
  { label: "Theme: Dark", action: "theme:dark", words: "appearance colour color mode night" },
  { label: "Keyboard shortcuts", action: "shortcuts", words: "keys hotkeys help ?" },
];

/**
 * How well `text` matches the lower-cased query: 0 for no match, higher for better (the whole text,
 * its start, a word's start, anywhere).
 */
export function matchScore(text: string | null | undefined, query: string): number {
  if (!text || !query) return 0;
  const t = text.toLowerCase();
  if (t === query) return 4;
  if (t.startsWith(query)) return 3;
  const at = t.indexOf(query);
  if (at < 0) return 0;
  return /[\s_\-./:]/.test(t[at - 1]) ? 2 : 1;
}

/** The best `max` of `rows` by their score (ties keep the rows' order); those scoring 0 are dropped. */
function best<T>(rows: readonly T[], score: (row: T) => number, max: number): T[] {
  return rows
    .map((row, i) => ({ row, i, s: score(row) }))
    .filter((r) => r.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, max)
    .map((r) => r.row);
}

/** The pages matching the query (by name first, then by their words); all of them without one. */
export function pageItems(query: string): PaletteItem[] {
  const q = query.trim().toLowerCase();
  const pages = q ? best(PAGES, (p) => Math.max(matchScore(p.label, q) * 2, matchScore(p.words, q)), PAGES.length) : PAGES;
  return pages.map((p) => ({ key: `page:${p.href}`, group: "Pages", label: p.label, href: p.href }));
}

/** The actions matching the query (by name first, then by their words); all of them without one. */
export function actionItems(query: string): PaletteItem[] {
  const q = query.trim().toLowerCase();
  const actions = q ? best(ACTIONS, (a) => Math.max(matchScore(a.label, q) * 2, matchScore(a.words, q)), ACTIONS.length) : ACTIONS;
  return actions.map((a) => ({ key: `action:${a.action}`, group: "Actions", label: a.label, action: a.action }));
}

export function graphItems(specs: readonly { name: string; description: string | null }[], query: string): PaletteItem[] {
  const q = query.trim().toLowerCase();
  return best(specs, (s) => Math.max(matchScore(s.name, q) * 2, matchScore(s.description, q)), PER_GROUP).map((s) => ({
    key: `graph:${s.name}`,
    group: "Graphs",
    label: s.name,
    detail: s.description ?? undefined,
    href: `/graphs/${encodeURIComponent(s.name)}`,
  }));
}

export function agentItems(agents: readonly { name: string; description: string | null }[], query: string): PaletteItem[] {
  const q = query.trim().toLowerCase();
  return best(agents, (a) => Math.max(matchScore(a.name, q) * 2, matchScore(a.description, q)), PER_GROUP).map((a) => ({
    key: `agent:${a.name}`,
    group: "Agents",
    label: a.name,
    detail: a.description ?? undefined,
    href: `/agents?agent=${encodeURIComponent(a.name)}`,
  }));
}

/** How many "Runs of <graph>" entries lead the Runs group: the graphs whose name matches best. */
export const GRAPH_RUN_LISTS = 2;

/**
 * "Runs of <graph>" for the graphs whose name matches: the server's run search looks at ids and inputs
 * only, so typing a graph's name would otherwise find none of its runs. Opens the Instances list
 * filtered to that graph.
 */
export function graphRunListItems(specs: readonly { name: string }[], query: string): PaletteItem[] {
  const q = query.trim().toLowerCase();
  return best(specs, (s) => matchScore(s.name, q), GRAPH_RUN_LISTS).map((s) => ({
    key: `runs-of:${s.name}`,
    group: "Runs",
    label: `Runs of ${s.name}`,
    detail: "the Instances list, this graph only",
    href: `/instances?graph=${encodeURIComponent(s.name)}`,
  }));
}

/** Runs as the server's search found them (id or input), in its order. */
export function runItems(rows: readonly { instanceId: string; graphName: string; status: string; waitKind: "input" | "approval" | null }[]): PaletteItem[] {
  return rows.slice(0, PER_GROUP).map((r) => ({
    key: `run:${r.instanceId}`,
    group: "Runs",
    label: r.instanceId,
    detail: `${r.graphName} · ${r.waitKind ? `waiting for ${r.waitKind}` : r.status}`,
    href: `/instances/${encodeURIComponent(r.instanceId)}`,
  }));
}

/** Chats as the server's search found them (title or messages), in its order. */
export function chatItems(rows: readonly { sessionId: string; title: string; agent: string | null; awaitingApproval: boolean }[]): PaletteItem[] {
  return rows.slice(0, PER_GROUP).map((c) => ({
    key: `chat:${c.sessionId}`,
    group: "Chats",
    label: c.title,
    detail: [c.agent ?? "assistant", c.awaitingApproval ? "waiting for approval" : null].filter(Boolean).join(" · "),
    href: `/chat?session=${encodeURIComponent(c.sessionId)}`,
  }));
}
