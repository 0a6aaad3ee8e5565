import type { SpecIssue } from "@/components/api/contract";

/**
 * What the editor shows of the compiler's issues: one message per problem, at its place.
 *
 * A YAML syntax error makes the parser report a cascade (a deleted `}` gave five issues, all placed
 * a line or two after the brace that was never closed): only the first syntax error is a problem the
 * person made, the rest follow from it, and nothing beyond the syntax can be checked until it is
 * fixed. An unclosed flow collection (`{ … ` or `[ …`) is placed where it opens, which is where the
 * person has to look. Identical issues at one place are shown once.
 */
export function editorIssues(issues: readonly SpecIssue[], text: string): SpecIssue[] {
  const syntax = issues.find((i) => i.kind === "syntax");
  if (syntax) return [placeSyntaxIssue(syntax, text)];
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.line ?? 0}:${i.column ?? 0}:${i.pathText}:${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A syntax issue as shown: an unclosed `{` or `[` is moved to the line where it opens. */
export function placeSyntaxIssue<T extends { message: string; line?: number; column?: number }>(issue: T, text: string): T {
  const closer = /end with an? ([}\]])/.exec(issue.message)?.[1] ?? (/flow (map|sequence|collection)/i.test(issue.message) ? "}" : null);
  if (!closer || !issue.line) return issue;
  const opener = closer === "}" ? "{" : "[";
  const open = unclosedOpener(text.split("\n"), issue.line, opener, closer);
  if (!open) return issue;
  return { ...issue, line: open.line, column: open.column, message: `"${opener}" is never closed: add "${closer}" to end it` };
}

/**
 * The last line at or before `upTo` (1-based) that opens more `opener`s than it closes (outside quotes
 * and comments), with the column of its last unclosed opener.
 */
function unclosedOpener(lines: readonly string[], upTo: number, opener: string, closer: string): { line: number; column: number } | null {
  for (let n = Math.min(upTo, lines.length); n >= 1; n--) {
    const open: number[] = [];
    let quote: string | null = null;
    const line = lines[n - 1];
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quote) {
        if (c === quote) quote = null;
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]))) break;
      else if (c === opener) open.push(i);
      else if (c === closer) open.pop();
    }
    if (open.length > 0) return { line: n, column: open[open.length - 1] + 1 };
  }
  return null;
}
