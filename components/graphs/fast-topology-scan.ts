import { edgeId, END, START, type TopoEdge, type TopoNode, type Topology, withJoins } from "@/shared/canvas/topology";

/**
 * A line scanner for the common shape of a spec (block lists or maps of nodes, edges as `{ from, to }`
 * flow maps or block maps), about 50× faster than a full YAML parse: the preview uses it on every
 * keystroke, and the full parse (yaml-topology.ts) confirms a moment later. Anything it does not
 * recognise (anchors, tags, block scalars, multi-line flow collections, tabs) makes it answer null,
 * and the caller parses fully. It does not look for syntax errors: that is the full parse's job.
 */

/** A line as the scanner reads it: the same for the same raw text wherever it sits. */
interface Line {
  readonly indent: number;
  readonly text: string;
  /** `key: value` of the text, read once (lazily: most lines are read only for their indent). */
  entry?: [string, string] | null;
  /** `key: value` of the text after `- ` (a list item's first field). */
  item?: [string, string] | null;
  /** The text after `- ` as a one-line `{ from, to }` map. */
  flow?: { from?: string; to?: string } | null;
}

const UNSUPPORTED = /(^|[\s:[{,])[&*!][^\s]|^[|>][-+0-9]*$/;

function stripComment(s: string): string {
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || s[i - 1] === " ")) return s.slice(0, i).trimEnd();
  }
  return s.trimEnd();
}

function scalar(raw: string): string | null {
  const v = raw.trim();
  if (v === "") return null;
  if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) return v.length >= 2 ? v.slice(1, -1) : null;
  if (/^[[{|>&*!]/.test(v)) return null;
  return v;
}

/** `key: value` → [key, value]; null when the line is not a simple mapping entry. */
function entry(text: string): [string, string] | null {
  const m = /^([A-Za-z_][\w.-]*|"[^"]*"|'[^']*')\s*:(?:\s+(.*))?$/.exec(text);
  if (!m) return null;
  const key = m[1].replace(/^["']|["']$/g, "");
  return [key, m[2] ?? ""];
}

/** `{ from: a, to: b }` (one line) → {from, to}. */
function flowEdge(text: string): { from?: string; to?: string } | null {
  const m = /^\{(.*)\}$/.exec(text.trim());
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const part of m[1].split(",")) {
    const kv = entry(part.trim());
    if (!kv) continue;
    const v = scalar(kv[1]);
    if (v !== null) out[kv[0]] = v;
  }
  return out;
}

/** A raw line the scanner skips (blank, comment, `---`) or gives up on (multi-line flow, anchors...). */
const BLANK = 0;
const UNREADABLE = 1;

/**
 * Lines already read, by their raw text. A keystroke changes one line of a spec's thousand, so the
 * next scan reads one line and looks the others up (the comment stripping and the regular expressions
 * were most of a scan). Cleared when it grows past a few edited documents' worth.
 */
const lineCache = new Map<string, Line | typeof BLANK | typeof UNREADABLE>();
const LINE_CACHE_MAX = 20_000;

function readLine(raw: string): Line | typeof BLANK | typeof UNREADABLE {
  let line = lineCache.get(raw);
  if (line !== undefined) return line;
  const stripped = stripComment(raw);
  const t = stripped.trimStart();
  if (t === "" || t === "---") line = BLANK;
  else if (UNSUPPORTED.test(t) || (/:\s*[[{]/.test(t) && !/[\]}]\s*$/.test(t))) line = UNREADABLE; // multi-line flow
  else line = { indent: stripped.length - t.length, text: t };
  if (lineCache.size >= LINE_CACHE_MAX) lineCache.clear();
  lineCache.set(raw, line);
  return line;
}

function entryOf(line: Line): [string, string] | null {
  if (line.entry === undefined) line.entry = entry(line.text);
  return line.entry;
}

function itemEntryOf(line: Line): [string, string] | null {
  if (line.item === undefined) line.item = entry(line.text.slice(2).trim());
  return line.item;
}

function flowOf(line: Line): { from?: string; to?: string } | null {
  if (line.flow === undefined) line.flow = flowEdge(line.text.slice(2).trim());
  return line.flow;
}

export function fastTopologyScan(text: string): Topology | null {
  if (text.includes("\t")) return null;
  const lines: Line[] = [];
  /** 1-based line number of each entry of `lines`. */
  const numbers: number[] = [];
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const line = readLine(raw[i]);
    if (line === BLANK) continue;
    if (line === UNREADABLE) return null;
    lines.push(line);
    numbers.push(i + 1);
  }

  const nodes: TopoNode[] = [{ id: START, kind: "start", nodeType: "", isJoin: false }];
  const names = new Set<string>([START, END]);
  const edges: TopoEdge[] = [];
  const edgeIds = new Set<string>();
  let section: "nodes" | "edges" | "other" = "other";
  let itemIndent = -1;
  let current: { name?: string; nodeType?: string; description?: string; line: number; column: number } | null = null;
  let edge: { from?: string; to?: string } | null = null;
  let listForm: boolean | null = null;

  type Pending = { name?: string; nodeType?: string; description?: string; line: number; column: number };
  const flushNode = (node: Pending | null): boolean => {
    if (!node) return true;
    const { name } = node;
    if (!name || names.has(name)) return false;
    names.add(name);
    const nodeType = node.nodeType ?? "";
    nodes.push({ id: name, kind: "node", nodeType, isJoin: nodeType === "join", description: node.description, line: node.line, column: node.column });
    return true;
  };
  const flushEdge = (): boolean => {
    if (!edge) return true;
    const { from, to } = edge;
    edge = null;
    if (!from || !to) return false;
    const id = edgeId(from, to);
    if (!edgeIds.has(id)) {
      edgeIds.add(id);
      edges.push({ id, source: from, target: to });
    }
    return true;
  };

  for (let li = 0; li < lines.length; li++) {
    const line = lines[li];
    const n = numbers[li];
    if (line.indent === 0) {
      if (!flushNode(current)) return null;
      current = null;
      if (!flushEdge()) return null;
      const kv = entryOf(line);
      if (!kv) return null;
      section = kv[0] === "nodes" ? "nodes" : kv[0] === "edges" ? "edges" : "other";
      if (section !== "other" && kv[1].trim() !== "" && kv[1].trim() !== "[]") return null;
      itemIndent = -1;
      listForm = null;
      continue;
    }
    if (section === "other") continue;

    if (section === "nodes") {
      if (itemIndent === -1) {
        itemIndent = line.indent;
        listForm = line.text.startsWith("- ");
      }
      if (line.indent === itemIndent) {
        if (!flushNode(current)) return null;
        if (listForm) {
          if (!line.text.startsWith("- ")) return null;
          current = { line: n, column: line.indent + 3 };
          const kv = itemEntryOf(line);
          if (kv) assign(current, kv);
        } else {
          const kv = entryOf(line);
          if (!kv || kv[1].trim() !== "") return null;
          current = { name: kv[0], line: n, column: line.indent + 1 };
        }
        continue;
      }
      if (line.indent < itemIndent) return null;
      // A field of the current node: only its direct fields matter (deeper lines are config).
      if (!current) return null;
      const fieldIndent = listForm ? itemIndent + 2 : -1;
      const kv = entryOf(line);
      if (kv && (listForm ? line.indent === fieldIndent : true)) assign(current, kv, listForm ? undefined : line.indent);
      continue;
    }

    // edges
    if (itemIndent === -1) itemIndent = line.indent;
    if (line.indent === itemIndent) {
      if (!line.text.startsWith("- ")) return null;
      if (!flushEdge()) return null;
      const flow = flowOf(line);
      if (flow) {
        edge = { ...flow };
        if (!flushEdge()) return null;
      } else {
        edge = {};
        const kv = itemEntryOf(line);
        if (!kv) return null;
        setEdge(edge, kv);
      }
      continue;
    }
    if (!edge) return null;
    const kv = entryOf(line);
    if (!kv) return null;
    setEdge(edge, kv);
  }
  if (!flushNode(current)) return null;
  if (!flushEdge()) return null;
  for (const e of edges) if (!names.has(e.source) || !names.has(e.target)) return null;
  nodes.push({ id: END, kind: "end", nodeType: "", isJoin: false });
  return { nodes: withJoins(nodes, edges), edges };

  function assign(node: NonNullable<typeof current>, [key, value]: [string, string], indent?: number) {
    // Map form: fields sit one level below the name; deeper lines belong to config.
    if (indent !== undefined && indent !== itemIndent + 2) return;
    const v = scalar(value);
    if (key === "name" && v !== null) node.name = v;
    else if (key === "node_type" && v !== null) node.nodeType = v;
    else if (key === "description" && v !== null) node.description = v;
  }
}

function setEdge(edge: { from?: string; to?: string }, [key, value]: [string, string]) {
  const v = scalar(value);
  if (v === null) return;
  if (key === "from") edge.from = v;
  else if (key === "to") edge.to = v;
}
