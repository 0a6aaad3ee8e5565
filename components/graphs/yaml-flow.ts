import { CST, Lexer } from "yaml";

/**
 * Reads a YAML flow collection (`{ from: a, to: b }`, `[a, [b, c]]`), on one line or several, from the
 * text of its opening bracket on; the text may stop anywhere (the cursor). The `yaml` package's Lexer
 * splits it (quoted strings with `{`, `[`, `#` or escapes, comments, plain scalars with `:` inside), and
 * tolerates the unfinished end; this file only follows the brackets to name each place.
 */

export type FlowPath = readonly (string | number)[];

/** Where the text's end leaves a cursor inside an unclosed collection (see yaml-cursor.ts's YamlCursor). */
export interface FlowCursor {
  kind: "key" | "value";
  path: FlowPath;
  prefix: string;
}

export interface FlowRead {
  /** The outermost collection closed (anything after its bracket is not read). */
  closed: boolean;
  /** Null when closed, or when the end is in a comment or just after a finished word. */
  cursor: FlowCursor | null;
}

/** A key or item with its scalar value (null for a collection or nothing), `line` counted from the text's first (0). */
export type FlowEmit = (path: FlowPath, value: string | null, line: number) => void;

interface Frame {
  kind: "map" | "seq";
  path: FlowPath;
  index: number;
  /** The map entry's key once its `:` is read; in a list, the key of a `[ a: b ]` single-pair item. */
  key: string | null;
  /** The scalar just read (a key before its `:`, or the value). */
  token: string | null;
  /** The entry's value is a nested collection (reported when it opened). */
  nested: boolean;
  line: number;
}

type Last = { type: "scalar" | "quoted" | "comment" | "space" | "other"; source: string };

/** Reads the whole text at once. */
export function readFlow(src: string, base: FlowPath, emit?: FlowEmit): FlowRead {
  const reader = new FlowReader(base, emit);
  reader.feed(src);
  return reader.end();
}

/**
 * Reads a collection fed piece by piece (a line at a time: the Lexer keeps its place, so a long
 * collection is read once, not again at each line), reporting each entry as it is finished.
 */
export class FlowReader {
  private readonly lexer = new Lexer();
  private readonly stack: Frame[] = [];
  private line = 0;
  private plain = false;
  private last: Last = { type: "other", source: "" };
  /** The outermost collection closed, or the text was no collection. */
  closed = false;

  constructor(
    private readonly base: FlowPath,
    private readonly emit: FlowEmit = () => {},
  ) {}

  /** Reads `src`; `last` says it is the end of the text (the cursor). */
  feed(src: string, last = false): void {
    if (this.closed) return;
    for (const source of this.lexer.lex(src, !last)) {
      this.token(source);
      if (this.closed) return;
    }
  }

  /** Ends the text (the cursor, or a line that is not part of the collection): reports what is still open. */
  end(): FlowRead {
    this.feed("", true);
    if (this.closed) return { closed: true, cursor: null };
    const top = this.stack[this.stack.length - 1];
    const cursor = top ? cursorAt(top, this.last) : null;
    for (let i = this.stack.length - 1; i >= 0; i--) this.finish(this.stack[i]);
    return { closed: false, cursor };
  }

  private finish(f: Frame): void {
    const emit = this.emit;
    if (f.kind === "map" && f.key !== null && !f.nested) emit([...f.path, f.key], f.token, f.line);
    else if (f.kind === "map" && f.key === null && f.token !== null) emit([...f.path, f.token], null, f.line);
    else if (f.kind === "seq" && f.key !== null && !f.nested) emit([...f.path, f.index, f.key], f.token, f.line);
    else if (f.kind === "seq" && !f.nested && f.token !== null) emit([...f.path, f.index], f.token, f.line);
    Object.assign(f, { key: null, token: null, nested: false });
  }

  private token(source: string): void {
    const stack = this.stack;
    const top = stack[stack.length - 1];
    const type: string | null = this.plain ? "plain" : CST.tokenType(source);
    this.plain = type === "scalar";
    if (type === "scalar" || type === "doc-mode" || type === "byte-order-mark") return;
    if (type === "newline" || type === "space") {
      if (type === "newline") this.line++;
      this.last = { type: "space", source };
      return;
    }
    if (type === "comment") {
      this.last = { type: "comment", source };
      return;
    }
    this.last = { type: "other", source };
    if (!top && type !== "flow-map-start" && type !== "flow-seq-start") {
      // Not a collection at all: nothing to read.
      this.closed = true;
    } else if (type === "flow-map-start" || type === "flow-seq-start") {
      let path = this.base;
      if (top) {
        path = [...top.path, ...(top.kind === "map" ? [top.key ?? top.token ?? ""] : top.key !== null ? [top.index, top.key] : [top.index])];
        top.nested = true;
        this.emit(path, null, this.line);
      }
      stack.push({ kind: type === "flow-map-start" ? "map" : "seq", path, index: 0, key: null, token: null, nested: false, line: this.line });
    } else if (type === "flow-map-end" || type === "flow-seq-end") {
      this.finish(top);
      stack.pop();
      if (stack.length === 0) this.closed = true;
    } else if (type === "comma") {
      this.finish(top);
      if (top.kind === "seq") top.index++;
    } else if (type === "map-value-ind") {
      if (top.key === null) {
        top.key = top.token ?? "";
        top.token = null;
      }
    } else if (type === "plain" || type === "single-quoted-scalar" || type === "double-quoted-scalar") {
      if (top.token === null && top.key === null) top.line = this.line;
      top.token = type === "plain" ? source : unquote(source);
      this.last = { type: type === "plain" ? "scalar" : "quoted", source };
    }
    // Anything else (`?`, tags, anchors, aliases) names nothing the editor offers.
  }
}

function cursorAt(top: Frame, last: Last): FlowCursor | null {
  let prefix = "";
  if (last.type === "comment") return null;
  if (last.type === "scalar") prefix = last.source;
  else if (last.type === "quoted") {
    // Inside a quoted string still open: the word typed so far; after its closing quote, nothing.
    const q = last.source[0];
    const body = last.source.slice(1);
    if (q === '"' ? /(^|[^\\])(\\\\)*"$/.test(body) : /'$/.test(body.replace(/''/g, ""))) return null;
    prefix = body;
  } else if (top.token !== null) return null; // a word already finished (`{ a |`)
  if (top.kind === "seq") return { kind: "value", path: top.key !== null ? [...top.path, top.index, top.key] : [...top.path, top.index], prefix };
  if (top.key !== null) return { kind: "value", path: [...top.path, top.key], prefix };
  return { kind: "key", path: top.path, prefix };
}

function unquote(s: string): string {
  if (s.startsWith("'")) return s.replace(/^'|'$/g, "").replace(/''/g, "'");
  try {
    return JSON.parse(s) as string;
  } catch {
    return s.replace(/^"|"$/g, "");
  }
}
