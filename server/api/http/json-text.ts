/**
 * How deeply a JSON text nests arrays and objects, found by one scan of the text before it is parsed.
 * Deep nesting is cheap to send and expensive to handle: every recursive walk over the value (schema
 * validation, cloning, serialization) can overflow the stack on it, which surfaced as a 500. Checking the
 * text first turns it into a 400 whatever later code does with the value.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/** True when some array or object in `text` sits deeper than `maxDepth` (the top level is depth 1). */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++; // skip the escaped character, which may be a quote
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (OPENERS.has(c)) {
      if (++depth > maxDepth) return true;
    } else if (CLOSERS.has(c)) {
      depth--;
    }
  }
  return false;
}
