import * as jsYaml from "js-yaml";

/** The part of js-yaml that `readPlainYaml` uses (the module itself, or what a worker `require`s). */
export type JsYamlEvents = Pick<typeof jsYaml, "parseEvents" | "constructFromEvents" | "EVENT_ID" | "SCALAR_STYLE">;

/**
 * Reads plain YAML fast: the data of a one-document text that uses no tags, anchors, aliases or
 * directives, read with js-yaml (about ten times faster than the `yaml` package, which a 20,000-node
 * spec keeps busy for over a second). Undefined for anything else, and for text js-yaml refuses
 * (a syntax error, a duplicate key, a complex key): the caller then reads it with `yaml`, which
 * locates problems.
 *
 * Both packages read YAML 1.2's core schema, and on such text they give the same data
 * (plain-yaml.test.ts holds them to it); what is left out is where they differ (explicit tags such as
 * `!!float 1`, `%YAML 1.1`, a null key: "null" in one, "" in the other) or where `yaml` sets limits of
 * its own (alias expansion).
 *
 * Self-contained on purpose: the YAML worker runs its source text (yaml-parse-worker.ts).
 */
export function readPlainYaml(text: string, yaml: JsYamlEvents): unknown {
  const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
  // Tabs: js-yaml takes some where `yaml` reports an error (a tab before a plain scalar at a line's start).
  // Block scalars with an explicit indentation (`|2`, `>-1`) or kept trailing lines (`|+`): the two
  // disagree on some.
  if (text.includes("\t") || /[|>](?:[+-]?[1-9]|[1-9]?\+)/.test(text)) return undefined;
  // An escaped line break in a double-quoted scalar, and exponents that may overflow (`1e511`).
  if (/\\\r?\n|\d[eE][-+]?\d{3}/.test(text)) return undefined;
  // Document markers past a leading `---` (indented ones included): they read them differently.
  if (/^ *(?:---|\.\.\.)/m.test(text.startsWith("---\n") ? text.slice(4) : text)) return undefined;
  let events;
  try {
    events = yaml.parseEvents(text, {});
  } catch {
    return undefined;
  }
  let documents = 0;
  // Per open collection: whether it is a mapping, and how many children it has had (even: a key next).
  const mappings: boolean[] = [];
  const children: number[] = [];
  for (let index = 0; index < events.length; index++) {
    const event = events[index];
    const depth = children.length - 1;
    const isKey = depth >= 0 && mappings[depth] && children[depth] % 2 === 0;
    if (depth >= 0 && event.type !== yaml.EVENT_ID.POP) children[depth] += 1;
    if (event.type === yaml.EVENT_ID.POP) {
      mappings.pop();
      children.pop();
    } else if (event.type === yaml.EVENT_ID.DOCUMENT) {
      documents += 1;
      // A spec is a mapping: anything else is the compiler's error, which `yaml` locates.
      if (event.directives.length > 0 || events[index + 1]?.type !== yaml.EVENT_ID.MAPPING) return undefined;
      mappings.push(false);
      children.push(0);
    } else if (event.type === yaml.EVENT_ID.ALIAS || event.tagEnd > event.tagStart || event.anchorEnd > event.anchorStart) {
      return undefined;
    } else if (event.type === yaml.EVENT_ID.SCALAR) {
      if (isKey && event.style === yaml.SCALAR_STYLE.PLAIN && NULLS.has(text.slice(event.valueStart, event.valueEnd))) return undefined;
    } else {
      mappings.push(event.type === yaml.EVENT_ID.MAPPING);
      children.push(0);
    }
  }
  if (documents !== 1) return undefined;
  try {
    return yaml.constructFromEvents(events, { source: text, maxAliases: 0 })[0];
  } catch {
    return undefined;
  }
}

/** `readPlainYaml` with this thread's js-yaml. */
export function readPlainYamlHere(text: string): unknown {
  return readPlainYaml(text, jsYaml);
}
