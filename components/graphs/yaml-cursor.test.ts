import { describe, expect, it } from "vitest";
import { yamlCursor, yamlOutline } from "./yaml-cursor";

/** The text with `‸` marking the cursor → the cursor's place. */
function at(marked: string) {
  const offset = marked.indexOf("‸");
  const before = marked.slice(0, offset);
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return yamlCursor(marked.slice(0, offset) + marked.slice(offset + 1), line, column);
}

const SPEC = `name: demo
description: |
  nodes: not a key, text
state:
  count: { type: number, default: 0 }
nodes:
  - name: fetch   # a comment
    node_type: function
    config: { op: template, template: "a: {{input}}", next: done }
  - name: split
    node_type: fan_out
    config:
      targets: [a, b]
edges:
  - { from: __start__, to: fetch }
  - from: fetch
    to: split
`;

describe("yamlOutline", () => {
  it("reads keys, list items and flow collections with their paths, and skips block scalars and comments", () => {
    const entries = yamlOutline(SPEC).map((e) => [e.path.join("."), e.value]);
    expect(entries).toEqual([
      ["name", "demo"],
      ["description", null],
      ["state", null],
      ["state.count", null],
      ["state.count.type", "number"],
      ["state.count.default", "0"],
      ["nodes", null],
      ["nodes.0.name", "fetch"],
      ["nodes.0.node_type", "function"],
      ["nodes.0.config", null],
      ["nodes.0.config.op", "template"],
      ["nodes.0.config.template", "a: {{input}}"],
      ["nodes.0.config.next", "done"],
      ["nodes.1.name", "split"],
      ["nodes.1.node_type", "fan_out"],
      ["nodes.1.config", null],
      ["nodes.1.config.targets", null],
      ["nodes.1.config.targets.0", "a"],
      ["nodes.1.config.targets.1", "b"],
      ["edges", null],
      ["edges.0", null],
      ["edges.0.from", "__start__"],
      ["edges.0.to", "fetch"],
      ["edges.1.from", "fetch"],
      ["edges.1.to", "split"],
    ]);
  });

  it("reads a compact list (`key:` with its items at its own indentation) and a map of nodes", () => {
    const text = "nodes:\n- name: a\n  node_type: delay\n- name: b\nsubgraphs:\n  inner:\n    nodes:\n      x: { node_type: join }\n";
    expect(yamlOutline(text).map((e) => e.path.join("."))).toEqual([
      "nodes", "nodes.0.name", "nodes.0.node_type", "nodes.1.name", "subgraphs", "subgraphs.inner", "subgraphs.inner.nodes", "subgraphs.inner.nodes.x", "subgraphs.inner.nodes.x.node_type",
    ]);
  });

  it("reads flow collections spanning several lines, with each entry's line", () => {
    const text = "edges: [\n  {from: __start__, to: a},  # {not: this}\n  {from: a,\n   to: \"b, c\"}\n]\nnodes:\n  a: { node_type: delay,\n    config: {ms: 1} }\nname: x\n";
    expect(yamlOutline(text).map((e) => [e.path.join("."), e.value, e.line])).toEqual([
      ["edges", null, 1],
      ["edges.0", null, 2],
      ["edges.0.from", "__start__", 2],
      ["edges.0.to", "a", 2],
      ["edges.1", null, 3],
      ["edges.1.from", "a", 3],
      ["edges.1.to", "b, c", 4],
      ["nodes", null, 6],
      ["nodes.a", null, 7],
      ["nodes.a.node_type", "delay", 7],
      ["nodes.a.config", null, 8],
      ["nodes.a.config.ms", "1", 8],
      ["name", "x", 9],
    ]);
  });

  it("reads a flow collection written on the line below its key", () => {
    expect(yamlOutline("edges:\n  [{from: a, to: b}]\nname: x\n").map((e) => [e.path.join("."), e.value, e.line])).toEqual([
      ["edges", null, 1],
      ["edges.0", null, 2],
      ["edges.0.from", "a", 2],
      ["edges.0.to", "b", 2],
      ["name", "x", 3],
    ]);
  });

  it("reports what an unclosed flow collection holds, and reads on after it", () => {
    expect(yamlOutline("nodes:\n  a: { node_type: delay,\n  b: { node_type: join }\n").map((e) => [e.path.join("."), e.value])).toEqual([
      ["nodes", null],
      ["nodes.a", null],
      ["nodes.a.node_type", "delay"],
      ["nodes.b", null],
      ["nodes.b.node_type", "join"],
    ]);
  });

  it("starts again at a document marker, and reads quoted keys and values", () => {
    expect(yamlOutline("a: 1\n---\n'b c': \"d # e\"\n").map((e) => [e.path.join("."), e.value])).toEqual([["a", "1"], ["b c", "d # e"]]);
  });
});

describe("yamlCursor", () => {
  it("finds the map whose key is being typed, by indentation", () => {
    expect(at("na‸")).toEqual({ kind: "key", path: [], prefix: "na" });
    expect(at(`${SPEC}‸`)).toEqual({ kind: "key", path: [], prefix: "" });
    expect(at("nodes:\n  - name: a\n    ‸")).toEqual({ kind: "key", path: ["nodes", 0], prefix: "" });
    expect(at("nodes:\n  - name: a\n    node_type: delay\n    config:\n      m‸")).toEqual({ kind: "key", path: ["nodes", 0, "config"], prefix: "m" });
    expect(at("nodes:\n  - name: a\n    config:\n      ms: 3\n  ‸")).toEqual({ kind: "key", path: ["nodes"], prefix: "" });
    expect(at("state:\n  count:\n    ty‸")).toEqual({ kind: "key", path: ["state", "count"], prefix: "ty" });
  });

  it("counts list items, compact lists included", () => {
    expect(at("nodes:\n  - name: a\n  - name: b\n  - ‸")).toEqual({ kind: "item", path: ["nodes", 2], prefix: "" });
    expect(at("nodes:\n- name: a\n- na‸")).toEqual({ kind: "item", path: ["nodes", 1], prefix: "na" });
    expect(at("edges:\n  - { from: a, to: b }\n  - from: b\n    ‸")).toEqual({ kind: "key", path: ["edges", 1], prefix: "" });
  });

  it("finds the key whose value is being typed", () => {
    expect(at("nodes:\n  - name: a\n    node_type: ‸")).toEqual({ kind: "value", path: ["nodes", 0, "node_type"], prefix: "" });
    expect(at("nodes:\n  - name: a\n    node_type: fan‸")).toEqual({ kind: "value", path: ["nodes", 0, "node_type"], prefix: "fan" });
    expect(at("edges:\n  - from: a\n    to: \"b‸")).toEqual({ kind: "value", path: ["edges", 0, "to"], prefix: "b" });
    expect(at("nodes:\n  - name: a\n    config:\n      targets:\n        - x\n        - ‸")).toEqual({ kind: "item", path: ["nodes", 0, "config", "targets", 1], prefix: "" });
  });

  it("reads inside a one-line flow collection", () => {
    const flow = (kind: string, path: (string | number)[], prefix: string) => ({ kind, path, prefix, flow: true });
    expect(at("edges:\n  - { from: a, to: ‸")).toEqual(flow("value", ["edges", 0, "to"], ""));
    expect(at("edges:\n  - { from: a, t‸")).toEqual(flow("key", ["edges", 0], "t"));
    expect(at("nodes:\n  - name: a\n    config: { op: route_if, then: b, else: en‸")).toEqual(flow("value", ["nodes", 0, "config", "else"], "en"));
    expect(at("nodes:\n  - name: a\n    config: { targets: [b, ‸")).toEqual(flow("value", ["nodes", 0, "config", "targets", 1], ""));
    expect(at("edges:\n  - { from: a, to: b } ‸")).toBeNull();
  });

  it("reads a flow list of flow maps, and a flow map's next key, with text after the cursor", () => {
    const flow = (kind: string, path: (string | number)[], prefix: string) => ({ kind, path, prefix, flow: true });
    expect(at("edges: [{from: a, to: ‸}]")).toEqual(flow("value", ["edges", 0, "to"], ""));
    expect(at("edges: [{from: a, to: b}, {from: b, to: __e‸}]")).toEqual(flow("value", ["edges", 1, "to"], "__e"));
    expect(at("edges: [{from: a, to: b}, {fr‸")).toEqual(flow("key", ["edges", 1], "fr"));
    expect(at("nodes:\n  - name: a\n    config: {url: x, ‸}")).toEqual(flow("key", ["nodes", 0, "config"], ""));
    expect(at("nodes:\n  x: { node_type: ‸ }")).toEqual(flow("value", ["nodes", "x", "node_type"], ""));
    expect(at("nodes:\n  x: { node_type: agent, config: { approval: { pol‸")).toEqual(flow("key", ["nodes", "x", "config", "approval"], "pol"));
    // `[ a: b ]`: a list item that is a one-pair map.
    expect(at("edges: [ from: a, to: b, from: c‸")).toEqual(flow("value", ["edges", 2, "from"], "c"));
  });

  it("reads a flow collection spanning several lines, comments and blank lines included", () => {
    const flow = (kind: string, path: (string | number)[], prefix: string) => ({ kind, path, prefix, flow: true });
    const edges = "edges: [\n  {from: __start__, to: a},   # the entry\n\n  # then\n  {from: a,\n   to: ‸";
    expect(at(edges)).toEqual(flow("value", ["edges", 1, "to"], ""));
    expect(at("nodes:\n  - name: a\n    node_type: delay\n    config: {\n      ms: 5,\n      ne‸\n    }\n")).toEqual(flow("key", ["nodes", 0, "config"], "ne"));
    expect(at("nodes:\n  - name: a\n    config: {\n      ms: 5,\n      ‸\n    }")).toEqual(flow("key", ["nodes", 0, "config"], ""));
    expect(at("nodes:\n  - { name: a,\n      node_type: fa‸")).toEqual(flow("value", ["nodes", 0, "node_type"], "fa"));
    // A collection on the lines below its key.
    expect(at("nodes:\n  - name: a\n    config:\n      {ms: 5,\n       ‸")).toEqual(flow("key", ["nodes", 0, "config"], ""));
    expect(at("edges:\n  [{from: a, to: ‸")).toEqual(flow("value", ["edges", 0, "to"], ""));
    // Closed on an earlier line: the block structure takes over again.
    expect(at("nodes:\n  - name: a\n    config: {\n      ms: 5\n    }\n    ‸")).toEqual({ kind: "key", path: ["nodes", 0], prefix: "" });
    expect(at("state: { a: {\n  type: number } }\nno‸")).toEqual({ kind: "key", path: [], prefix: "no" });
    // Left unclosed: a line at or left of its key's column is no longer in it.
    expect(at("nodes:\n  - name: a\n    config: { ms: 5,\n    node_t‸")).toEqual({ kind: "key", path: ["nodes", 0], prefix: "node_t" });
  });

  it("is not fooled by quoted `{`, `[`, `#`, `,` and `:`, or by comments", () => {
    const flow = (kind: string, path: (string | number)[], prefix: string) => ({ kind, path, prefix, flow: true });
    expect(at('nodes:\n  - config: { template: "a {b [c # d, e: f", ne‸')).toEqual(flow("key", ["nodes", 0, "config"], "ne"));
    expect(at("nodes:\n  - config: { template: 'it''s {[#', ne‸")).toEqual(flow("key", ["nodes", 0, "config"], "ne"));
    expect(at('nodes:\n  - config: { template: "say \\"{\\" #", next: ‸')).toEqual(flow("value", ["nodes", 0, "config", "next"], ""));
    expect(at('edges: [{from: a, to: "b‸')).toEqual(flow("value", ["edges", 0, "to"], "b"));
    expect(at('edges: [{from: a, to: "b" ‸')).toBeNull();
    expect(at("edges: [{from: a, # a comment ‸")).toBeNull();
    expect(at("edges: [{from: a, # a comment {\n  to: ‸")).toEqual(flow("value", ["edges", 0, "to"], ""));
    expect(at("edges: [{from: a}] # [{ ‸")).toBeNull();
    // A plain scalar may hold `#` and `:` not after a space.
    expect(at("nodes:\n  - config: { url: http://x/#top, ne‸")).toEqual(flow("key", ["nodes", 0, "config"], "ne"));
  });

  it("offers nothing in a comment or a block scalar's text", () => {
    expect(at("name: x # a no‸")).toBeNull();
    expect(at("description: |\n  some te‸")).toBeNull();
    expect(at("description: |\n  text\nna‸")).toEqual({ kind: "key", path: [], prefix: "na" });
  });
});
