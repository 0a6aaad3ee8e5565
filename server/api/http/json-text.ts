/**
 * One scan of a JSON text before it is parsed, for what would go wrong later:
 * - nesting: deep nesting is cheap to send and expensive to handle (every recursive walk over the value,
 *   schema validation, cloning, serialization, can overflow the stack on it, which surfaced as a 500);
 * - U+0000: PostgreSQL's text and jsonb cannot hold it, so a value carrying one failed deep in a write
 *   (a search, a run's pause) instead of being refused; SQLite keeps it, so it is refused on both.
 * Checking the text first turns either into a 400 whatever later code does with the value.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

export type JsonTextProblem = "too-deep" | "nul";

/** The first problem of `text`: an array or object deeper than `maxDepth` (the top is 1), or a `\u0000`. */
export function jsonTextProblem(text: string, maxDepth: number): JsonTextProblem | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        if (text.startsWith("u0000", i + 1)) return "nul";
        i++; // skip the escaped character, which may be a quote
      } else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (OPENERS.has(c)) {
      if (++depth > maxDepth) return "too-deep";
    } else if (CLOSERS.has(c)) {
      depth--;
    }
  }
  return null;
}

/** Text other than JSON (a YAML body, a query parameter) holding U+0000. */
export const holdsNul = (text: string): boolean => text.includes("\u0000");

/** What a request is told about `problem` in `what` ("the body", "the input"). */
export function jsonTextMessage(problem: JsonTextProblem, what: string, maxDepth: number): string {
  return problem === "nul"
    ? `${what} holds the character U+0000 (NUL), which Modex does not store: remove it`
    : `${what} nests arrays or objects deeper than ${maxDepth} levels (MODEX_MAX_JSON_DEPTH)`;
}
