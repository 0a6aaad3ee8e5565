/**
 * Where a cursor is in a YAML document, and what the document holds, read from indentation alone: the
 * editor asks on every completion and hover, often while the text is half-typed and would not parse.
 * Covers what specs are written with: block maps and lists (compact `key:\n- item` too), `- key: v`
 * items, one-line flow collections (`{ from: a, to: b }`, `[a, b]`), comments and block scalars (`|`).
 * Plain TypeScript, no Monaco: lines and columns are 1-based as in the editor.
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

/** Everything the document writes, in order (the whole text, valid or not). */
export function yamlOutline(text: string): YamlEntry[] {
  const entries: YamlEntry[] = [];
  new Scanner(entries).lines(text.split("\n"), Infinity);
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

  constructor(private readonly entries: YamlEntry[]) {}

  lines(lines: readonly string[], upTo: number): void {
    for (let n = 0; n < Math.min(lines.length, upTo); n++) this.line(lines[n], n + 1);
  }

  private path(): (string | number)[] {
    return this.stack.slice(1).map((f) => f.seg);
  }

  private line(raw: string, lineNo: number): void {
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
      // A list item's scalar, or a flow collection as the item.
      if (this.top().kind === "item") this.value(this.path(), rest.trim(), lineNo);
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
    this.value(path, value, lineNo);
  }

  private value(path: YamlPath, value: string, lineNo: number): void {
    if (value.startsWith("{") || value.startsWith("[")) {
      this.entries.push({ path, value: null, line: lineNo });
      walkFlow(value, path, (p, v) => this.entries.push({ path: p, value: v, line: lineNo }));
      return;
    }
    this.entries.push({ path, value: value === "" ? null : unquote(value), line: lineNo });
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
      if (start.startsWith("{") || start.startsWith("[")) return walkFlow(start, path, () => {});
      if (/^[|>]/.test(start)) return null;
      return { kind: "value", path, prefix: start.replace(/^["']/, "") };
    }
    if (rest.startsWith("{") || rest.startsWith("[")) return items > 0 ? walkFlow(rest, this.path(), () => {}) : null;
    if (!/^[^\s:#{}[\],"']*$/.test(rest)) return null;
    return { kind: items > 0 ? "item" : "key", path: this.path(), prefix: rest };
  }
}

interface FlowFrame {
  kind: "map" | "seq";
  path: YamlPath;
  index: number;
  key: string | null;
  token: string;
  /** The current key's or item's value is a nested collection (recorded when it opened). */
  nested: boolean;
}

/**
 * Reads a one-line flow collection, reporting each key and item with its scalar value; returns where
 * its end leaves a cursor (inside an unclosed collection), or null when the collection is closed.
 */
function walkFlow(src: string, base: YamlPath, emit: (path: YamlPath, value: string | null) => void): YamlCursor | null {
  const stack: FlowFrame[] = [];
  let quote: string | null = null;
  const finish = (f: FlowFrame) => {
    const token = f.token.trim();
    if (f.kind === "map" && f.key !== null && !f.nested) emit([...f.path, f.key], token === "" ? null : unquote(token));
    else if (f.kind === "map" && f.key === null && token !== "") emit([...f.path, unquote(token)], null);
    else if (f.kind === "seq" && !f.nested && token !== "") emit([...f.path, f.index], unquote(token));
    f.key = null;
    f.token = "";
    f.nested = false;
  };
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    const top = stack[stack.length - 1];
    if (quote) {
      if (c === quote) quote = null;
      if (top) top.token += c;
      continue;
    }
    if (c === "{" || c === "[") {
      const path = top ? [...top.path, top.kind === "map" ? (top.key ?? unquote(top.token.trim())) : top.index] : base;
      if (top) {
        top.nested = true;
        emit(path, null);
      }
      stack.push({ kind: c === "{" ? "map" : "seq", path, index: 0, key: null, token: "", nested: false });
    } else if (!top) {
      if (!/\s/.test(c)) return null; // text after the collection closed
    } else if (c === "}" || c === "]") {
      finish(top);
      stack.pop();
      if (stack.length === 0) return null;
    } else if (c === ",") {
      finish(top);
      if (top.kind === "seq") top.index++;
    } else if (c === ":" && top.kind === "map" && top.key === null && /[\s,}]|^$/.test(src[i + 1] ?? "")) {
      top.key = unquote(top.token.trim());
      top.token = "";
    } else {
      if ((c === '"' || c === "'") && top.token.trim() === "") quote = c;
      top.token += c;
    }
  }
  const top = stack[stack.length - 1];
  if (!top) return null;
  const prefix = top.token.trimStart().replace(/^["']/, "");
  if (top.kind === "seq") return { kind: "value", path: [...top.path, top.index], prefix };
  if (top.key !== null) return { kind: "value", path: [...top.path, top.key], prefix };
  return /^[^\s:#"']*$/.test(prefix) ? { kind: "key", path: top.path, prefix } : null;
}

/** The line without its comment (a `#` at the start or after a space, outside quotes). */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
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
