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
    expect(at("edges:\n  - { from: a, to: ‸")).toEqual({ kind: "value", path: ["edges", 0, "to"], prefix: "" });
    expect(at("edges:\n  - { from: a, t‸")).toEqual({ kind: "key", path: ["edges", 0], prefix: "t" });
    expect(at("nodes:\n  - name: a\n    config: { op: route_if, then: b, else: en‸")).toEqual({ kind: "value", path: ["nodes", 0, "config", "else"], prefix: "en" });
    expect(at("nodes:\n  - name: a\n    config: { targets: [b, ‸")).toEqual({ kind: "value", path: ["nodes", 0, "config", "targets", 1], prefix: "" });
    expect(at("edges:\n  - { from: a, to: b } ‸")).toBeNull();
  });

  it("offers nothing in a comment or a block scalar's text", () => {
    expect(at("name: x # a no‸")).toBeNull();
    expect(at("description: |\n  some te‸")).toBeNull();
    expect(at("description: |\n  text\nna‸")).toEqual({ kind: "key", path: [], prefix: "na" });
  });
});
