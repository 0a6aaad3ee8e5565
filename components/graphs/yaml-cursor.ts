import { FlowReader, readFlow } from "./yaml-flow";

/**
 * Where a cursor is in a YAML document, and what the document holds: the editor asks on every completion
 * and hover, often while the text is half-typed and would not parse. Block structure is read from
 * indentation: block maps and lists (compact `key:\n- item` too), `- key: v` items, comments and block
 * scalars (`|`). A flow collection (`{ from: a, to: b }`, `[a, b]`), on one line or spanning several, is
 * read by yaml-flow.ts from its opening bracket. Plain TypeScript, no Monaco: lines and columns are
 * 1-based as in the editor.
 */

export type YamlPath = readonly (string | number)[];

/** A key (or a list item) the document writes, with its scalar value (null for a block, a collection or nothing). */
export interface YamlEntry {
  path: YamlPath;
  value: string | null;
  line: number;
}

/**
 * - `key`: a key of the map at `path` is being typed (`prefix` so far);
 * - `value`: the value of `path` (its last segment is the key, or a list index);
 * - `item`: just after a list's `- `: a key of the item at `path`, or the item's value when the list holds scalars.
 */
export interface YamlCursor {
  kind: "key" | "value" | "item";
  path: YamlPath;
  prefix: string;
  /** Inside a flow collection: a key is written `key: value` there, never as a block. */
  flow?: true;
}

/** A flow collection whose bracket is not closed yet on the lines read so far. */
interface OpenFlow {
  reader: FlowReader;
  /** The column of the key or list item holding it: a line at or left of it is not part of it. */
  col: number;
}

interface Frame {
  col: number;
  seg: string | number;
  kind: "key" | "item";
  /** A key with nothing after its colon: its value may be a block below it (`key:\n- item` included). */
  open: boolean;
  /** Index of the next item of a list under this frame. */
  next: number;
}

const KEY = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"'#{}[\],:-][^#:]*?|-[^\s#:][^#:]*?)\s*:(?=\s|$)/;

/** The last text read: completion and hover ask again and again while the text does not change. */
let last: { text: string; entries: readonly YamlEntry[] } | null = null;

/** Everything the document writes, in order (the whole text, valid or not). */
export function yamlOutline(text: string): readonly YamlEntry[] {
  if (last?.text === text) return last.entries;
  const entries: YamlEntry[] = [];
  new Scanner(entries).lines(text.split("\n"), Infinity);
  last = { text, entries };
  return entries;
}

/** The cursor's place at `line`/`column`; null inside a comment, a block scalar, or text that is no key or value. */
export function yamlCursor(text: string, line: number, column: number): YamlCursor | null {
  const lines = text.split("\n");
  const scanner = new Scanner([]);
  scanner.lines(lines, line - 1);
  return scanner.cursor(lines[line - 1]?.slice(0, column - 1) ?? "");
}

class Scanner {
  private stack: Frame[] = [{ col: -1, seg: "", kind: "key", open: true, next: 0 }];
  /** The column of a `key: |` whose more indented lines are text, not YAML. */
  private scalarCol: number | null = null;
  private flow: OpenFlow | null = null;

  constructor(private readonly entries: YamlEntry[]) {}

  lines(lines: readonly string[], upTo: number): void {
    for (let n = 0; n < Math.min(lines.length, upTo); n++) this.line(lines[n], n + 1);
    if (upTo === Infinity) this.endFlow();
  }

  private path(): (string | number)[] {
    return this.stack.slice(1).map((f) => f.seg);
  }

  private line(raw: string, lineNo: number): void {
    if (raw.trim() === "") return;
    if (this.continuesFlow(raw)) {
      this.flow!.reader.feed(`${raw}\n`);
      if (this.flow!.reader.closed) this.flow = null;
      return;
    }
    this.endFlow();
    const text = stripComment(raw);
    const indent = text.length - text.trimStart().length;
    if (text.trim() === "") return;
    if (this.scalarCol !== null && indent > this.scalarCol) return;
    this.scalarCol = null;
    if (/^(---|\.\.\.)(\s|$)/.test(text)) {
      this.stack.length = 1;
      this.stack[0].next = 0;
      return;
    }
    let rest = text.slice(indent);
    let col = indent;
    this.popFor(col, rest.startsWith("- ") || rest === "-");
    while (rest.startsWith("- ") || rest === "-") {
      this.pushItem(col);
      const after = rest.slice(1);
      const gap = after.length - after.trimStart().length;
      col += 1 + gap;
      rest = after.trimStart();
      if (rest === "") return;
      if (!rest.startsWith("- ") && rest !== "-") break;
    }
    const key = KEY.exec(rest);
    if (!key) {
      // A list item's scalar, or a flow collection as the item or as the value of the key above.
      if (this.flowBelowKey(rest)) this.openFlow(this.path(), lineNo, raw.slice(col));
      else if (this.top().kind === "item") this.value(this.path(), rest.trim(), lineNo, raw.slice(col));
      return;
    }
    const name = unquote(key[1]);
    const value = rest.slice(key[0].length).trim();
    const path = [...this.path(), name];
    this.stack.push({ col, seg: name, kind: "key", open: value === "", next: 0 });
    if (/^[|>][-+0-9]*$/.test(value)) {
      this.scalarCol = col;
      this.entries.push({ path, value: null, line: lineNo });
      return;
    }
    this.value(path, value, lineNo, raw.slice(text.length - rest.slice(key[0].length).trimStart().length));
  }

  /** `source` is the value as written, its comment included (a flow collection may go on below). */
  private value(path: YamlPath, value: string, lineNo: number, source: string): void {
    if (value.startsWith("{") || value.startsWith("[")) {
      this.entries.push({ path, value: null, line: lineNo });
      this.openFlow(path, lineNo, source);
      return;
    }
    this.entries.push({ path, value: value === "" ? null : unquote(value), line: lineNo });
  }

  /** Reads the flow collection `source` opens, on this line and, while it stays open, the lines below. */
  private openFlow(path: YamlPath, lineNo: number, source: string): void {
    // The key's value is written: no block (nor another collection) below it.
    this.top().open = false;
    const reader = new FlowReader(path, (p, v, n) => this.entries.push({ path: p, value: v, line: lineNo + n }));
    reader.feed(`${source}\n`);
    if (!reader.closed) this.flow = { reader, col: this.top().col };
  }

  /** A line inside the open flow collection: indented past its holder, or its closing bracket at least that far. */
  private continuesFlow(line: string): boolean {
    if (!this.flow) return false;
    const indent = line.length - line.trimStart().length;
    return indent > this.flow.col || (indent === this.flow.col && /^[}\]]/.test(line.trimStart()));
  }

  /** Reports the flow collection read so far (closed, or cut short by a line that is not part of it). */
  private endFlow(): void {
    this.flow?.reader.end();
    this.flow = null;
  }

  /** `key:` with its flow collection on the lines below (`config:\n  { ms: 1 }`). */
  private flowBelowKey(rest: string): boolean {
    const top = this.top();
    return top.kind === "key" && top.open && this.stack.length > 1 && /^[{[]/.test(rest);
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1];
  }

  /** Leaves the frames a line at `col` is not inside of; a `- ` under an open key at its own column is that key's list. */
  private popFor(col: number, dash: boolean): void {
    while (this.stack.length > 1) {
      const top = this.top();
      if (top.col < col) return;
      if (top.col === col && dash && top.kind === "key" && top.open) return;
      this.stack.pop();
    }
  }

  private pushItem(col: number): void {
    const parent = this.top();
    this.stack.push({ col, seg: parent.next++, kind: "item", open: true, next: 0 });
  }

  /** Where `prefix` (the cursor line up to the cursor) puts the cursor, after the lines before it. */
  cursor(prefix: string): YamlCursor | null {
    if (this.flow && (prefix.trim() === "" || this.continuesFlow(prefix))) {
      this.flow.reader.feed(prefix);
      const cursor = this.flow.reader.end().cursor;
      return cursor && { ...cursor, flow: true };
    }
    if (stripComment(prefix) !== prefix) return null;
    const indent = prefix.length - prefix.trimStart().length;
    if (this.scalarCol !== null && indent > this.scalarCol) return null;
    let rest = prefix.slice(indent);
    let col = indent;
    const dash = rest.startsWith("- ") || rest === "-";
    this.popFor(col, dash);
    let items = 0;
    while (rest.startsWith("- ")) {
      this.pushItem(col);
      items++;
      const after = rest.slice(1);
      col += after.length - after.trimStart().length + 1;
      rest = after.trimStart();
    }
    if (rest === "-") return null;
    const key = KEY.exec(rest);
    if (key) {
      const path = [...this.path(), unquote(key[1])];
      const value = rest.slice(key[0].length);
      const start = value.trimStart();
      if (start.startsWith("{") || start.startsWith("[")) return flowCursor(start, path);
      if (/^[|>]/.test(start)) return null;
      return { kind: "value", path, prefix: start.replace(/^["']/, "") };
    }
    if (rest.startsWith("{") || rest.startsWith("[")) return items > 0 || this.flowBelowKey(rest) ? flowCursor(rest, this.path()) : null;
    if (!/^[^\s:#{}[\],"']*$/.test(rest)) return null;
    return { kind: items > 0 ? "item" : "key", path: this.path(), prefix: rest };
  }
}

function flowCursor(src: string, path: YamlPath): YamlCursor | null {
  const cursor = readFlow(src, path).cursor;
  return cursor && { ...cursor, flow: true };
}

/** The line without its comment (a `#` at the start or after a space, outside quotes). */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:,[{]/.test(line[i - 1])) quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line;
}

function unquote(s: string): string {
  return /^"(?:[^"\\]|\\.)*"$|^'[^']*'$/.test(s) ? s.slice(1, -1) : s;
}
