import { LineCounter, parseDocument, type Document } from "yaml";
import { GraphSpecCompiler, type CompiledSpec, type SpecCompileOptions } from "@/server/graph/spec/graph-spec-compiler";
import type { GraphSpec } from "@/server/graph/spec/graph-spec";
import { SpecError, isSpecError, specIssue, type SpecIssue } from "@/server/graph/spec/spec-errors";
import { readPlainYamlHere } from "./plain-yaml";
import { locateSpecPath, positionOf } from "./yaml-locator";

export interface ParseSpecYamlOptions extends SpecCompileOptions {
  /** Defaults to a compiler with the built-in node types. */
  compiler?: GraphSpecCompiler;
}

/** Aliases may repeat a node this many times in all: enough for any spec, too few for a "billion laughs". */
const MAX_ALIAS_COUNT = 100;

const defaultCompiler = new GraphSpecCompiler();

interface LoadedYaml {
  doc: Document;
  lines: LineCounter;
  data: unknown;
}

/**
 * YAML text → GraphSpec → CompiledGraph. Throws only SpecError, and every issue in it carries the
 * 1-based line and column of the spec location it names (YAML syntax errors included).
 */
export function parseSpecYaml(text: string, options: ParseSpecYamlOptions = {}): CompiledSpec {
  const { compiler = defaultCompiler, ...compile } = options;
  return withLocations(text, (data) => compiler.compile(data, compile));
}

/** YAML text → a validated GraphSpec, without compiling it. Throws only SpecError (located). */
export function readSpecYaml(text: string, compiler: GraphSpecCompiler = defaultCompiler): GraphSpec {
  return withLocations(text, (data) => compiler.parse(data));
}

/** Every located issue of a YAML spec, or an empty list when it compiles (for live editor feedback). */
export function validateSpecYaml(text: string, compiler: GraphSpecCompiler = defaultCompiler): readonly SpecIssue[] {
  try {
    parseSpecYaml(text, { compiler });
    return [];
  } catch (error) {
    return (error as SpecError).issues;
  }
}

/**
 * Runs `use` on the parsed YAML; every SpecError issue it throws gets its line and column (agent
 * definitions too). Plain YAML is read fast (readPlainYaml); the `yaml` package's document, which locates
 * problems, is built only for other text and when `use` throws.
 */
export function withLocations<T>(text: string, use: (data: unknown) => T): T {
  const plain = typeof text === "string" ? readPlainYamlHere(text) : undefined;
  if (plain !== undefined) {
    try {
      return use(plain);
    } catch {
      // located below, on the document
    }
  }
  const loaded = loadYaml(text);
  try {
    return use(loaded.data);
  } catch (error) {
    const issues = isSpecError(error) ? error.issues : [specIssue("schema", [], messageOf(error))];
    throw new SpecError(issues.map((i) => ({ ...i, ...locateSpecPath(loaded.doc, loaded.lines, i.path, i.target) })));
  }
}

function loadYaml(text: string): LoadedYaml {
  const lines = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(typeof text === "string" ? text : String(text), { lineCounter: lines, prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  } catch (error) {
    throw new SpecError([{ ...specIssue("syntax", [], messageOf(error)), line: 1, column: 1 }]);
  }
  if (doc.errors.length > 0) {
    throw new SpecError(doc.errors.map((e) => ({ ...specIssue("syntax", [], readable(e.message)), ...positionOf(lines, e.pos[0]) })));
  }
  try {
    return { doc, lines, data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    throw new SpecError([{ ...specIssue("syntax", [], messageOf(error)), line: 1, column: 1 }]);
  }
}

/** The first line of an error's message: never a stack trace. */
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return readable(message.split("\n")[0] || "unreadable spec");
}

/** The parser's own words, except where they name its internals (a stack overflow on deep nesting). */
function readable(message: string): string {
  return message.startsWith("Maximum call stack size exceeded")
    ? "the YAML nests collections too deeply to be read (no spec needs more than a few dozen levels)"
    : message;
}
