/**
 * The one error a graph spec can fail with. Every problem found while parsing, validating or
 * compiling a spec is an issue with a path into the spec (`nodes[2].config.seconds`); the YAML
 * layer adds the line and column of that path. Messages never carry stack traces.
 */

export const SPEC_ERROR_CODE = "GRAPH_SPEC" as const;

/** Where the issue was found: YAML text, the schema, a node's config, a reference, or topology. */
export type SpecIssueKind = "syntax" | "schema" | "config" | "reference" | "topology";

export type SpecPath = readonly (string | number)[];

export interface SpecIssue {
  readonly kind: SpecIssueKind;
  readonly path: SpecPath;
  /** `nodes[2].config.seconds`; empty for the document root. */
  readonly pathText: string;
  readonly message: string;
  /** "key" when the issue is the key at the end of `path` itself (an unknown key), not its value. */
  readonly target?: "key";
  /** 1-based; set when the spec came from text (YAML). */
  readonly line?: number;
  readonly column?: number;
}

export class SpecError extends Error {
  readonly code = SPEC_ERROR_CODE;
  readonly issues: readonly SpecIssue[];

  constructor(issues: readonly SpecIssue[]) {
    super(`invalid graph spec: ${issues.map(describeIssue).join("; ")}`);
    this.name = "SpecError";
    this.issues = Object.freeze([...issues]);
  }
}

export const isSpecError = (e: unknown): e is SpecError => e instanceof SpecError;

export function specIssue(kind: SpecIssueKind, path: SpecPath, message: string): SpecIssue {
  return { kind, path: [...path], pathText: formatSpecPath(path), message };
}

/** `["nodes", 2, "config", "seconds"]` → `nodes[2].config.seconds`. */
export function formatSpecPath(path: SpecPath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

function describeIssue(issue: SpecIssue): string {
  const where = issue.line !== undefined ? ` (line ${issue.line}, column ${issue.column})` : "";
  return issue.pathText ? `${issue.pathText}${where}: ${issue.message}` : `${issue.message}${where}`;
}
