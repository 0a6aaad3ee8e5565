/**
 * Cuts a YAML document whose top level is a block mapping into parts of about equal size, each a YAML
 * document of its own, so that reading the parts on separate threads and joining their data
 * (`joinSections`) gives the whole document's data. A cut falls between two top-level entries
 * (`nodes:` ..., `edges:` ...) or between two items of a top-level block sequence; a part that starts
 * inside a sequence gets the key's line (`nodes:`) in front of it, and its items are appended to the
 * previous part's.
 *
 * That holds only for plain documents, so this answers null (read the text whole) unless every line at
 * column 0 is a simple key (`name:`), a block sequence item (`- ...`), a comment or blank; no key is
 * repeated; and the text has no anchor or alias characters (`&`, `*`: an alias may name an anchor in
 * another part), no document markers or directives. A quoted or flow scalar over several lines that a
 * cut splits leaves the part before it unterminated, so that part does not read: callers read the whole
 * text again when any part fails (see yaml-parse-worker.ts).
 */
const TOP_LEVEL_KEY = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]*(?:#.*)?)?\r?\n?$/;
const TOP_LEVEL_ENTRY = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t\r\n]|$)/;
const SEQUENCE_ITEM = /^( *)-(?:[ \t\r\n]|$)/;

export interface YamlSections {
  texts: string[];
  /** For each part, the top-level sequence whose items it continues from the part before (or null). */
  continues: (string | null)[];
}

interface Cut {
  at: number;
  /** Set when the cut falls between two items of this key's sequence. */
  key: string | null;
}

export function splitTopLevelSections(text: string, parts: number): YamlSections | null {
  if (parts < 2 || text.includes("&") || text.includes("*")) return null;
  const cuts: Cut[] = [];
  const keys = new Set<string>();
  // The top-level key whose value may be a block sequence, and that sequence's item indentation once seen.
  let open: { key: string; indent: number | null; items: number } | null = null;
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf("\n", at);
    const next = end === -1 ? text.length : end + 1;
    const line = text.slice(at, Math.min(next, at + 256));
    const first = text.charCodeAt(at);
    const blankOrComment = /^[ \t]*(?:#.*)?\r?\n?$/.test(line);
    if (!blankOrComment) {
      const item = SEQUENCE_ITEM.exec(line);
      if (first !== 0x20 && first !== 0x09 && !item) {
        const entry = TOP_LEVEL_ENTRY.exec(line);
        if (!entry || keys.has(entry[1]) || entry[1] === "__proto__") return null;
        keys.add(entry[1]);
        cuts.push({ at, key: null });
        open = TOP_LEVEL_KEY.test(line) ? { key: entry[1], indent: null, items: 0 } : null;
      } else if (open) {
        if (open.indent === null) {
          if (item) open.indent = item[1].length;
          else open = null; // a mapping or a scalar under the key, not a sequence
        }
        // Each item after the first may start a part (cutting before the first is cutting at the key).
        if (open && item && item[1].length === open.indent && open.items++ > 0) cuts.push({ at, key: open.key });
      } else if (first !== 0x20 && first !== 0x09) {
        return null; // a sequence item at column 0 with no key above it
      }
    }
    at = next;
  }
  if (keys.size === 0) return null;
  // For each 1/parts of the text, the cut nearest to it (in order, each used once; never the first entry).
  const chosen: Cut[] = [{ at: 0, key: null }];
  const firstEntry = cuts.find((c) => c.key === null)?.at;
  for (let p = 1; p < parts; p++) {
    const target = (text.length * p) / parts;
    let best: Cut | null = null;
    for (const c of cuts) {
      if (c.at === firstEntry || c.at <= chosen[chosen.length - 1].at) continue;
      if (!best || Math.abs(c.at - target) < Math.abs(best.at - target)) best = c;
    }
    if (!best) break;
    chosen.push(best);
  }
  if (chosen.length < 2) return null;
  return {
    texts: chosen.map((c, i) => (c.key === null ? "" : `${c.key}:\n`) + text.slice(c.at, chosen[i + 1]?.at ?? text.length)),
    continues: chosen.map((c) => c.key),
  };
}

/**
 * The whole document's data from its parts' data (each a mapping), or null when they do not join: a
 * part that is not a plain mapping, or a key repeated other than the sequence a part continues.
 */
export function joinSections(sections: YamlSections, data: readonly unknown[]): Record<string, unknown> | null {
  const whole: Record<string, unknown> = {};
  for (let i = 0; i < data.length; i++) {
    const part = data[i];
    if (!isPlainMapping(part)) return null;
    for (const [key, value] of Object.entries(part)) {
      if (!Object.hasOwn(whole, key)) {
        whole[key] = value;
        continue;
      }
      const before = whole[key];
      if (key !== sections.continues[i] || !Array.isArray(before) || !Array.isArray(value)) return null;
      for (const item of value) before.push(item);
    }
  }
  return whole;
}

function isPlainMapping(data: unknown): data is Record<string, unknown> {
  return typeof data === "object" && data !== null && Object.getPrototypeOf(data) === Object.prototype;
}
