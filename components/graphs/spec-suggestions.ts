import type { NodeTypeField, NodeTypeInfo, NodeTypeRef } from "@/shared/graph-node-types";
import * as K from "@/shared/graph-spec-keys";
import { yamlCursor, yamlOutline, type YamlCursor, type YamlEntry, type YamlPath } from "./yaml-cursor";

/**
 * What the graph editor suggests at the cursor of a spec's YAML, and what hovering a word there shows.
 * The spec format's keys are known at once (shared/graph-spec-keys.ts); node types, their config keys
 * and agent names come from the server when it answers (`catalog`, null until then). Names the spec
 * itself declares (nodes, state fields, subgraphs) are read from the text.
 */

export interface SpecCatalog {
  nodeTypes: readonly NodeTypeInfo[] | null;
  agents: readonly { name: string; description: string | null }[] | null;
}

export type SuggestionKind = "key" | "value" | "type" | "node" | "agent" | "state" | "subgraph";

export interface Suggestion {
  label: string;
  kind: SuggestionKind;
  /** Above the documentation: what it is ("node type", a key's type). */
  detail: string;
  /** One line beside the label in the list (a node type's description, a node's type). */
  summary: string;
  documentation: string;
  /** A snippet (`$0` is where the cursor goes). */
  insertText: string;
  /** Open the list again after inserting (a key whose value can be suggested). */
  retrigger: boolean;
}

export interface SpecHover {
  /** 1-based columns of the hovered word on its line. */
  startColumn: number;
  endColumn: number;
  markdown: string;
}

/** A key the place at the cursor may hold, with what its value may be. */
interface KeyInfo {
  name: string;
  description: string | null;
  type?: string;
  values?: readonly string[];
  valueDocs?: ReadonlyMap<string, string | null>;
  refersTo?: NodeTypeRef | "type" | "edge_from" | "edge_to" | null;
  block?: "list" | "map";
  fields?: readonly NodeTypeField[];
}

/** The suggestions at a 1-based position, and the typed word they replace; null where none apply. */
export function specSuggestions(text: string, line: number, column: number, catalog: SpecCatalog): { prefix: string; items: Suggestion[] } | null {
  const cursor = yamlCursor(text, line, column);
  if (!cursor) return null;
  const doc = new SpecDoc(text, catalog);
  const items = cursor.kind === "value" ? doc.valuesFor(cursor.path) : cursor.kind === "key" ? doc.keysFor(cursor.path) : doc.itemFor(cursor.path);
  // In a flow collection a key is `key: value` on the spot, whatever block its value would take.
  return { prefix: cursor.prefix, items: cursor.flow ? items.map((i) => (i.kind === "key" ? { ...i, insertText: `${i.label}: $0` } : i)) : items };
}

/** Documentation of the key or value under a 1-based position. */
export function specHover(text: string, line: number, column: number, catalog: SpecCatalog): SpecHover | null {
  const lineText = text.split("\n")[line - 1] ?? "";
  const word = wordAt(lineText, column);
  if (!word) return null;
  // The cursor's place at the word's end says whether it is a key or a value, and whose.
  const cursor = yamlCursor(text, line, word.end);
  if (!cursor || cursor.prefix !== word.text) return null;
  const doc = new SpecDoc(text, catalog);
  const markdown = lineText.slice(word.end - 1).match(/^\s*:/) ? doc.keyHover(cursor, word.text) : doc.valueHover(cursor, word.text);
  return markdown ? { startColumn: word.start, endColumn: word.end, markdown } : null;
}

function wordAt(line: string, column: number): { text: string; start: number; end: number } | null {
  const re = /[A-Za-z0-9_.-]+/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const start = m.index + 1;
    const end = start + m[0].length;
    if (column >= start && column <= end) return { text: m[0], start, end };
  }
  return null;
}

/** One read of the spec's text: its entries, and the keys and values each place may hold. */
class SpecDoc {
  private readonly entries: readonly YamlEntry[];

  constructor(
    text: string,
    private readonly catalog: SpecCatalog,
  ) {
    this.entries = yamlOutline(text);
  }

  private valueAt(path: YamlPath): string | null {
    const key = path.join("\u0000");
    return this.entries.find((e) => e.path.join("\u0000") === key)?.value ?? null;
  }

  /** The keys (or list indexes) written in the map (or list) at `path`. */
  private keysIn(path: YamlPath): Set<string> {
    const out = new Set<string>();
    for (const e of this.entries) if (e.path.length > path.length && path.every((s, i) => e.path[i] === s)) out.add(String(e.path[path.length]));
    return out;
  }

  /** The keys the map at `path` may hold; null when the place is not one the format knows. */
  keyList(path: YamlPath): KeyInfo[] | null {
    const { scope, rel } = splitScope(path);
    const top = scope.length === 0;
    if (rel.length === 0) return (top ? K.TOP_LEVEL_KEYS : K.SUBGRAPH_KEYS).map(fromSpecKey);
    const [head, second, third, ...more] = rel;
    if (head === "nodes" && second !== undefined) {
      const node = [...scope, "nodes", second];
      if (third === undefined) return K.NODE_KEYS.filter((k) => k.name !== "name" || typeof second === "number").map((k) => this.nodeKey(k));
      if (third === "retry" && more.length === 0) return K.RETRY_KEYS.map(fromSpecKey);
      if (third === "config") return this.configKeys(node, more);
      return null;
    }
    if (head === "edges" && typeof second === "number" && third === undefined) return K.EDGE_KEYS.map((k) => ({ ...fromSpecKey(k), refersTo: k.name === "from" ? "edge_from" : "edge_to" }));
    if (!top) return null;
    if (head === "state" && second !== undefined && third === undefined) return K.STATE_FIELD_KEYS.map(fromSpecKey);
    if (head === "defaults" && second === undefined) return K.DEFAULTS_KEYS.map(fromSpecKey);
    if (head === "defaults" && second === "retry" && third === undefined) return K.RETRY_KEYS.map(fromSpecKey);
    if (head === "schedules" && typeof second === "number" && third === undefined) return K.SCHEDULE_KEYS.map(fromSpecKey);
    return null;
  }

  private nodeKey(k: K.SpecKey): KeyInfo {
    if (k.name !== "node_type") return fromSpecKey(k);
    const types = this.catalog.nodeTypes ?? [];
    return { ...fromSpecKey(k), refersTo: "type", values: types.map((t) => t.name), valueDocs: new Map(types.map((t) => [t.name, t.description])) };
  }

  /** The config keys of the node at `node` (by its node_type; by its `op` when the config is a union), `sub` deep. */
  private configKeys(node: YamlPath, sub: YamlPath): KeyInfo[] | null {
    const type = this.catalog.nodeTypes?.find((t) => t.name === this.valueAt([...node, "node_type"]));
    if (!type?.config) return null;
    const { fields, discriminator } = type.config;
    let list: readonly NodeTypeField[] = fields;
    if (discriminator) {
      const chosen = this.valueAt([...node, "config", discriminator.key]);
      const variant = discriminator.variants.find((v) => v.value === chosen);
      if (variant) list = variant.fields;
    }
    for (const seg of sub) {
      const field = list.find((f) => f.name === seg);
      if (!field?.fields) return null;
      list = field.fields;
    }
    const variantDocs = discriminator && sub.length === 0 ? new Map(discriminator.variants.map((v) => [v.value, v.description])) : undefined;
    return list.map((f) => ({
      name: f.name,
      description: f.description,
      type: f.type,
      values: f.values,
      valueDocs: f.name === discriminator?.key ? variantDocs : undefined,
      refersTo: f.refersTo,
      block: f.fields ? "map" : undefined,
      fields: f.fields,
    }));
  }

  /** The key `path` ends with, as the map holding it knows it. */
  private keyInfo(path: YamlPath): KeyInfo | null {
    const name = path[path.length - 1];
    if (typeof name === "number") {
      // A list item: its list's key says what the items are (config targets, retry_on).
      const list = this.keyInfo(path.slice(0, -1));
      return list ? { ...list, block: undefined } : null;
    }
    return this.keyList(path.slice(0, -1))?.find((k) => k.name === name) ?? null;
  }

  keysFor(path: YamlPath): Suggestion[] {
    const present = this.keysIn(path);
    return (this.keyList(path) ?? []).filter((k) => !present.has(k.name)).map(keySuggestion);
  }

  /** Just after `- `: the item's keys, or its value when the list holds names (config targets). */
  itemFor(path: YamlPath): Suggestion[] {
    const list = this.keyInfo(path.slice(0, -1));
    if (list && !list.block && (list.refersTo || list.values?.length)) return this.valuesFor(path);
    return this.keysFor(path);
  }

  valuesFor(path: YamlPath): Suggestion[] {
    const key = this.keyInfo(path);
    if (!key) return [];
    const ref = key.refersTo;
    if (ref === "type") return (this.catalog.nodeTypes ?? []).map((t) => value(t.name, "type", "node type", typeDoc(t), t.description));
    if (ref === "node" || ref === "edge_from" || ref === "edge_to") {
      const names = this.nodeNames(splitScope(path).scope);
      const ends = ref === "edge_from" ? [K.SPEC_START] : [K.SPEC_END];
      return [
        ...names.map((n) => value(n.name, "node", "node", n.doc, n.type ?? "node")),
        ...ends.map((n) => value(n, "node", "node", n === K.SPEC_START ? "The graph's entry." : "The graph's exit.", n === K.SPEC_START ? "entry" : "exit")),
      ];
    }
    if (ref === "state_field") return this.stateFields().map((f) => value(f.name, "state", `state field${f.type ? `: ${f.type}` : ""}`, f.doc, f.type ?? "state field"));
    if (ref === "subgraph") return [...this.keysIn(["subgraphs"])].map((n) => value(n, "subgraph", "subgraph", this.valueAt(["subgraphs", n, "description"]) ?? "", "subgraph"));
    if (ref === "agent") return (this.catalog.agents ?? []).map((a) => value(a.name, "agent", "agent", a.description ?? "", a.description ?? "agent"));
    return (key.values ?? []).map((v) => {
      const doc = key.valueDocs?.get(v);
      return value(v, "value", key.name, doc ?? key.description ?? "", doc ?? "");
    });
  }

  /** The nodes of the graph at `scope` (the spec, or one of its subgraphs), list or map form. */
  private nodeNames(scope: YamlPath): { name: string; type: string | null; doc: string }[] {
    const nodes = [...scope, "nodes"];
    return [...this.keysIn(nodes)].flatMap((seg) => {
      const key = /^\d+$/.test(seg) ? Number(seg) : seg;
      const name = typeof key === "number" ? this.valueAt([...nodes, key, "name"]) : key;
      if (!name) return [];
      const type = this.valueAt([...nodes, key, "node_type"]);
      const description = this.valueAt([...nodes, key, "description"]);
      return [{ name, type, doc: [type && `node_type: ${type}`, description].filter(Boolean).join("\n\n") }];
    });
  }

  /** The spec's state fields (subgraphs share the spec's state). */
  private stateFields(): { name: string; type: string | null; doc: string }[] {
    return [...this.keysIn(["state"])].map((name) => ({ name, type: this.valueAt(["state", name, "type"]), doc: this.valueAt(["state", name, "description"]) ?? "" }));
  }

  keyHover(cursor: YamlCursor, word: string): string | null {
    const path = cursor.path;
    const key = this.keyList(path)?.find((k) => k.name === word);
    if (!key) return null;
    const lines = [`**${key.name}**${key.type ? ` \`${key.type}\`` : ""}`, key.description ?? ""];
    if (key.refersTo === "type") {
      const type = this.catalog.nodeTypes?.find((t) => t.name === this.valueAt([...path, "node_type"]));
      if (type) lines.push(`\`${type.name}\`: ${type.description}`);
    }
    return lines.filter(Boolean).join("\n\n");
  }

  valueHover(cursor: YamlCursor, word: string): string | null {
    if (cursor.kind !== "value") return null;
    // Only a value the format or the catalog knows: a free value (a name, a template) has its key's hover.
    const match = this.valuesFor(cursor.path).find((s) => s.label === word);
    if (!match) return null;
    return match.documentation ? `**${word}** — ${match.detail}\n\n${match.documentation}` : `**${word}** — ${match.detail}`;
  }
}

function splitScope(path: YamlPath): { scope: YamlPath; rel: YamlPath } {
  return path[0] === "subgraphs" && path.length >= 2 ? { scope: path.slice(0, 2), rel: path.slice(2) } : { scope: [], rel: path };
}

function fromSpecKey(k: K.SpecKey): KeyInfo {
  return { name: k.name, description: k.description, values: k.values, block: k.block };
}

function keySuggestion(k: KeyInfo): Suggestion {
  const insertText = k.block === "list" ? `${k.name}:\n  - $0` : k.block === "map" ? `${k.name}:\n  $0` : `${k.name}: $0`;
  return {
    label: k.name,
    kind: "key",
    detail: k.type ?? (k.block ? k.block : ""),
    summary: k.type ?? (k.block ? k.block : ""),
    documentation: k.description ?? "",
    insertText,
    retrigger: !k.block && (!!k.refersTo || !!k.values?.length),
  };
}

function value(label: string, kind: SuggestionKind, detail: string, documentation: string, summary: string): Suggestion {
  return { label, kind, detail, summary, documentation, insertText: label, retrigger: false };
}

function typeDoc(t: NodeTypeInfo): string {
  if (!t.config) return `${t.description}\n\nNo config schema to show.`;
  const keys = t.config.fields.map((f) => `\`${f.name}\`${f.required ? "" : "?"}`).join(", ");
  return `${t.description}\n\nconfig: ${keys || "(none)"}`;
}
