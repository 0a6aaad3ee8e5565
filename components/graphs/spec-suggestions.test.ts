import { describe, expect, it } from "vitest";
import type { NodeTypeField, NodeTypeInfo } from "@/shared/graph-node-types";
import { TOP_LEVEL_KEYS } from "@/shared/graph-spec-keys";
import { specHover, specSuggestions, type SpecCatalog } from "./spec-suggestions";

const field = (name: string, more: Partial<NodeTypeField> = {}): NodeTypeField => ({ name, description: `About ${name}.`, type: "string", required: false, values: [], refersTo: null, ...more });

/** A catalog as GET /api/graphs/node-types answers it, cut down to what these tests use. */
const TYPES: NodeTypeInfo[] = [
  {
    name: "function",
    description: "Runs one safe declarative operation.",
    configSchema: {},
    config: {
      fields: [field("op", { values: ["template", "route_if"], required: true }), field("template"), field("next", { refersTo: "node" }), field("then", { refersTo: "node" }), field("field", { refersTo: "state_field" })],
      discriminator: {
        key: "op",
        variants: [
          { value: "template", description: "Deliver a rendered string.", fields: [field("op", { values: ["template"] }), field("template"), field("next", { refersTo: "node" })] },
          { value: "route_if", description: "Deliver to then or else.", fields: [field("op", { values: ["route_if"] }), field("field", { refersTo: "state_field" }), field("then", { refersTo: "node" })] },
        ],
      },
    },
  },
  { name: "delay", description: "Sleeps, then delivers.", configSchema: {}, config: { fields: [field("ms", { type: "integer" }), field("next", { refersTo: "node" })] } },
  { name: "fan_out", description: "Delivers each item to a target.", configSchema: {}, config: { fields: [field("targets", { type: "string[]", refersTo: "node", required: true })] } },
  {
    name: "agent",
    description: "A ReAct agent.",
    configSchema: {},
    config: { fields: [field("agent", { refersTo: "agent" }), field("approval", { type: "object", fields: [field("policy", { values: ["always", "never"] })] })] },
  },
  { name: "opaque", description: "A type without a config schema.", configSchema: null, config: null },
];
const FULL: SpecCatalog = { nodeTypes: TYPES, agents: [{ name: "researcher", description: "Finds sources." }] };
const EMPTY: SpecCatalog = { nodeTypes: null, agents: null };

const SPEC = `name: demo
state:
  count: { type: number, description: Times seen }
nodes:
  - name: fetch
    node_type: function
    config: { op: template, template: hi }
  - name: pick
    node_type: delay
    description: Waits a bit
subgraphs:
  inner:
    nodes:
      deep: { node_type: delay, config: { ms: 1 } }
edges:
  - { from: __start__, to: fetch }
`;

/** The text with `‸` marking the cursor. */
function split(marked: string): { text: string; line: number; column: number } {
  const offset = marked.indexOf("‸");
  const before = marked.slice(0, offset);
  return { text: before + marked.slice(offset + 1), line: before.split("\n").length, column: before.length - before.lastIndexOf("\n") };
}

function labels(marked: string, catalog = FULL): string[] {
  const { text, line, column } = split(marked);
  return specSuggestions(text, line, column, catalog)?.items.map((i) => i.label) ?? [];
}

function hover(marked: string, catalog = FULL): string | null {
  const { text, line, column } = split(marked);
  return specHover(text, line, column, catalog)?.markdown ?? null;
}

describe("specSuggestions: keys", () => {
  it("offers the spec's top-level keys before the server answers, leaving out those written", () => {
    expect(labels("‸", EMPTY)).toEqual(TOP_LEVEL_KEYS.map((k) => k.name));
    expect(labels(`${SPEC}‸`, EMPTY)).toEqual(["version", "description", "scheduler", "max_iterations", "defaults", "schedules"]);
  });

  it("offers a node's keys in a list item (with name) and in a map entry (without)", () => {
    expect(labels("nodes:\n  - ‸")).toEqual(["name", "node_type", "description", "trigger", "retry", "timeout_ms", "config"]);
    expect(labels("nodes:\n  - name: a\n    ‸")).toEqual(["node_type", "description", "trigger", "retry", "timeout_ms", "config"]);
    expect(labels("nodes:\n  a:\n    node_type: delay\n    ‸")).toEqual(["description", "trigger", "retry", "timeout_ms", "config"]);
    expect(labels("subgraphs:\n  s:\n    ‸")).toEqual(["description", "scheduler", "max_iterations", "nodes", "edges"]);
    expect(labels("state:\n  n:\n    ‸")).toEqual(["type", "default", "description"]);
    expect(labels("nodes:\n  - name: a\n    retry:\n      ‸")).toContain("max_attempts");
    expect(labels("schedules:\n  - ‸")).toContain("cron");
    expect(labels("edges:\n  - { ‸")).toEqual(["from", "to"]);
  });

  it("offers a config's keys by the node's type, and by its op when the config is a union", () => {
    expect(labels("nodes:\n  - name: a\n    node_type: delay\n    config:\n      ‸")).toEqual(["ms", "next"]);
    expect(labels("nodes:\n  - name: a\n    node_type: function\n    config:\n      ‸")).toEqual(["op", "template", "next", "then", "field"]);
    expect(labels("nodes:\n  - name: a\n    node_type: function\n    config:\n      op: route_if\n      ‸")).toEqual(["field", "then"]);
    expect(labels("nodes:\n  - name: a\n    config: { op: template, ‸\n    node_type: function\n")).toEqual(["template", "next"]);
    expect(labels("nodes:\n  - name: a\n    node_type: agent\n    config:\n      approval:\n        ‸")).toEqual(["policy"]);
    // No type yet, a type without a schema, or a catalog not here yet: nothing to say.
    expect(labels("nodes:\n  - name: a\n    config:\n      ‸")).toEqual([]);
    expect(labels("nodes:\n  - name: a\n    node_type: opaque\n    config:\n      ‸")).toEqual([]);
    expect(labels("nodes:\n  - name: a\n    node_type: delay\n    config:\n      ‸", EMPTY)).toEqual([]);
  });

  it("inserts a key with its colon, a block key with its indented block, and reopens the list where a value can be picked", () => {
    const { text, line, column } = split("‸");
    const items = specSuggestions(text, line, column, FULL)!.items;
    expect(items.find((i) => i.label === "name")).toMatchObject({ insertText: "name: $0", retrigger: false });
    expect(items.find((i) => i.label === "nodes")).toMatchObject({ insertText: "nodes:\n  - $0" });
    expect(items.find((i) => i.label === "state")).toMatchObject({ insertText: "state:\n  $0" });
    expect(items.find((i) => i.label === "scheduler")).toMatchObject({ retrigger: true });
    const node = split("nodes:\n  - name: a\n    ‸");
    expect(specSuggestions(node.text, node.line, node.column, FULL)!.items.find((i) => i.label === "node_type")).toMatchObject({ retrigger: true });
  });
});

describe("specSuggestions: values", () => {
  it("offers the registry's node types with their descriptions", () => {
    const { text, line, column } = split("nodes:\n  - name: a\n    node_type: de‸");
    const got = specSuggestions(text, line, column, FULL)!;
    expect(got.prefix).toBe("de");
    expect(got.items.map((i) => i.label)).toEqual(["function", "delay", "fan_out", "agent", "opaque"]);
    expect(got.items[1]).toMatchObject({ kind: "type", summary: "Sleeps, then delivers.", documentation: expect.stringContaining("Sleeps, then delivers.") });
    expect(got.items[1].documentation).toContain("`ms`?");
    expect(got.items[4].documentation).toContain("No config schema");
    expect(labels("nodes:\n  - name: a\n    node_type: ‸", EMPTY)).toEqual([]);
  });

  it("offers the graph's nodes for edges and routes: __start__ as a source, __end__ as a target", () => {
    expect(labels(`${SPEC}  - { from: ‸`)).toEqual(["fetch", "pick", "__start__"]);
    expect(labels(`${SPEC}  - from: fetch\n    to: ‸`)).toEqual(["fetch", "pick", "__end__"]);
    expect(labels(`${SPEC}`.replace("config: { op: template, template: hi }", "config: { op: template, next: ‸ }"))).toEqual(["fetch", "pick", "__end__"]);
    expect(labels("nodes:\n  - name: a\n    node_type: fan_out\n    config:\n      targets:\n        - ‸\n  - name: b\n")).toEqual(["a", "b", "__end__"]);
    expect(labels("nodes:\n  - name: a\n    node_type: fan_out\n    config: { targets: [a, ‸\n")).toEqual(["a", "__end__"]);
    // Inside a subgraph, its own nodes.
    expect(labels(`${SPEC}`.replace("config: { ms: 1 } }", "config: { ms: 1, next: ‸ } }"))).toEqual(["deep", "__end__"]);
  });

  it("offers state fields, agents, subgraphs and enum values where the format names them", () => {
    expect(labels(`${SPEC}`.replace("config: { op: template, template: hi }", "config: { op: route_if, field: ‸ }"))).toEqual(["count"]);
    expect(labels("nodes:\n  - name: a\n    node_type: agent\n    config:\n      agent: ‸")).toEqual(["researcher"]);
    expect(labels("nodes:\n  - name: a\n    node_type: agent\n    config:\n      agent: ‸", EMPTY)).toEqual([]);
    expect(labels("nodes:\n  - name: a\n    node_type: function\n    config:\n      op: ‸")).toEqual(["template", "route_if"]);
    expect(labels("scheduler: ‸")).toEqual(["linear", "parallel"]);
    expect(labels("state:\n  n:\n    type: ‸")).toEqual(["string", "number", "boolean", "array", "object", "any"]);
    expect(labels("name: ‸")).toEqual([]);
  });

  it("documents each value: the op's variant, the node's type, the state field's description", () => {
    const at = (marked: string) => {
      const { text, line, column } = split(marked);
      return specSuggestions(text, line, column, FULL)!.items;
    };
    expect(at("nodes:\n  - name: a\n    node_type: function\n    config:\n      op: ‸")[1]).toMatchObject({ label: "route_if", documentation: "Deliver to then or else." });
    expect(at(`${SPEC}  - { from: ‸`)[1]).toMatchObject({ label: "pick", summary: "delay", documentation: "node_type: delay\n\nWaits a bit" });
    expect(at(`${SPEC}`.replace("op: template, template: hi }", "op: route_if, field: ‸ }"))[0]).toMatchObject({ detail: "state field: number", documentation: "Times seen" });
  });

  it("offers nothing in a comment or a block of text", () => {
    expect(labels("nodes: # ‸")).toEqual([]);
    expect(labels("description: |\n  ‸")).toEqual([]);
  });
});

describe("specSuggestions and specHover in flow collections", () => {
  it("offers edge targets, node types, config keys and a flow map's remaining keys, on one line or several", () => {
    expect(labels(`${SPEC}`.replace("edges:\n  - { from: __start__, to: fetch }\n", "edges: [{from: __start__, to: fetch}, {from: fetch, to: ‸}]\n"))).toEqual(["fetch", "pick", "__end__"]);
    expect(labels("nodes:\n  x: { node_type: ‸ }")).toEqual(["function", "delay", "fan_out", "agent", "opaque"]);
    expect(labels("nodes:\n  - name: a\n    node_type: delay\n    config: {ms: 1, ‸}")).toEqual(["next"]);
    expect(labels("nodes:\n  - name: a\n    node_type: delay\n    config: {\n      ms: 1,\n      ‸\n    }")).toEqual(["next"]);
    expect(labels("nodes: [\n  {name: a, node_type: delay},\n  {name: b,\n   ‸")).toEqual(["node_type", "description", "trigger", "retry", "timeout_ms", "config"]);
    expect(labels("nodes: [{name: a, node_type: delay}]\nedges: [\n  {from: __start__, to: a},\n  {from: a, to: ‸")).toEqual(["a", "__end__"]);
  });

  it("inserts a key as `key: ` in a flow map, even one whose value is a block elsewhere", () => {
    const { text, line, column } = split("nodes:\n  - name: a\n    node_type: agent\n    config: { ‸ }");
    const items = specSuggestions(text, line, column, FULL)!.items;
    expect(items.find((i) => i.label === "approval")).toMatchObject({ insertText: "approval: $0" });
  });

  it("documents keys and values inside a multi-line flow map", () => {
    expect(hover("nodes:\n  - name: a\n    node_type: delay\n    config: {\n      m‸s: 5,\n    }")).toContain("About ms.");
    expect(hover("nodes: [\n  { name: a,\n    node_type: fan_o‸ut }\n]")).toMatch(/\*\*fan_out\*\* — node type/);
  });
});

describe("specHover", () => {
  it("documents a key, and a node_type key with the node's type", () => {
    expect(hover("name‸: x")).toContain("Name of the graph");
    expect(hover("nodes:\n  - name: a\n    node_t‸ype: delay")).toMatch(/What the node is[\s\S]*`delay`: Sleeps, then delivers\./);
    expect(hover("nodes:\n  - na‸me: a")).toContain("Unique node name");
    expect(hover("nodes:\n  - name: a\n    node_type: delay\n    config: { m‸s: 5 }")).toContain("About ms.");
  });

  it("documents a value: a node type, an op, an agent", () => {
    expect(hover("nodes:\n  - name: a\n    node_type: fan_o‸ut")).toMatch(/\*\*fan_out\*\* — node type\n\nDelivers each item to a target\./);
    expect(hover("nodes:\n  - name: a\n    node_type: function\n    config: { op: rou‸te_if }")).toContain("Deliver to then or else.");
    expect(hover("nodes:\n  - name: a\n    node_type: agent\n    config:\n      agent: resea‸rcher")).toContain("Finds sources.");
  });

  it("says nothing about words the format does not know", () => {
    expect(hover("bogus‸: 1")).toBeNull();
    expect(hover("# a comm‸ent")).toBeNull();
    expect(hover("name: de‸mo")).toBeNull();
  });
});
