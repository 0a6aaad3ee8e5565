import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctionNode } from "../nodes/function-node";
import { GraphSpecSchema, buildGraphSpecSchema, graphSpecJsonSchema } from "./graph-spec";
import { createBuiltinNodeRegistry } from "./builtin-node-types";
import { GraphSpecCompiler } from "./graph-spec-compiler";

const minimal = {
  name: "g",
  nodes: [{ name: "a", node_type: "function", config: { op: "identity" } }],
  edges: [{ from: "__start__", to: "a" }, { from: "a", to: "__end__" }],
};

function issuesOf(input: unknown) {
  const parsed = new GraphSpecCompiler().validate(input);
  expect(parsed.length).toBeGreaterThan(0);
  return parsed;
}

describe("GraphSpec schema", () => {
  it("fills defaults: linear scheduler, ON_ALL_PREDS, empty state and subgraphs", () => {
    const spec = GraphSpecSchema.parse(minimal);
    expect(spec.scheduler).toBe("linear");
    expect(spec.state).toEqual({});
    expect(spec.subgraphs).toEqual({});
    expect(spec.nodes).toMatchObject([{ trigger: "ON_ALL_PREDS" }]);
  });

  it("accepts nodes as a map keyed by name, with paths by name", () => {
    const map = { ...minimal, nodes: { a: { node_type: "delay", config: { seconds: "x" } } } };
    expect(issuesOf(map)[0].pathText).toBe("nodes.a.config.seconds");
    expect(GraphSpecSchema.safeParse({ ...minimal, nodes: { a: { node_type: "function", config: { op: "identity" } } } }).success).toBe(true);
  });

  it("accepts a number or a string as the version label", () => {
    expect(GraphSpecSchema.parse({ ...minimal, version: 3 }).version).toBe(3);
    expect(GraphSpecSchema.parse({ ...minimal, version: "1.2-beta" }).version).toBe("1.2-beta");
  });

  it("rejects ON_RECEIVE with a message that says why and what to use", () => {
    const [issue] = issuesOf({ ...minimal, nodes: [{ ...minimal.nodes[0], trigger: "ON_RECEIVE" }] });
    expect(issue).toMatchObject({ pathText: "nodes[0].trigger", kind: "schema" });
    expect(issue.message).toMatch(/ON_RECEIVE is deprecated.*use ON_ALL_PREDS/);
  });

  it("rejects an unknown node_type, listing the known ones", () => {
    const [issue] = issuesOf({ ...minimal, nodes: [{ name: "a", node_type: "shell", config: {} }] });
    expect(issue.pathText).toBe("nodes[0].node_type");
    expect(issue.message).toMatch(/unknown node_type "shell"; expected one of: function, delay/);
  });

  it("reports a missing node_type", () => {
    expect(issuesOf({ ...minimal, nodes: [{ name: "a", config: {} }] })[0].message).toMatch(/^missing node_type/);
  });

  it("places bad config at nodes[i].config.<key>", () => {
    const nodes = [
      minimal.nodes[0],
      { name: "b", node_type: "human_input", config: { prompt: "?" } },
      { name: "c", node_type: "delay", config: { seconds: -1 } },
    ];
    const [issue] = issuesOf({ ...minimal, nodes });
    expect(issue).toMatchObject({ kind: "config", path: ["nodes", 2, "config", "seconds"], pathText: "nodes[2].config.seconds" });
  });

  it("needs exactly one of ms or seconds on a delay", () => {
    const both = { ...minimal, nodes: [{ name: "a", node_type: "delay", config: { ms: 1, seconds: 1 } }] };
    expect(issuesOf(both)[0]).toMatchObject({ pathText: "nodes[0].config.ms", message: "give exactly one of ms or seconds" });
  });

  it("validates function ops by their own schema", () => {
    const bad = { ...minimal, nodes: [{ name: "a", node_type: "function", config: { op: "map", fn: "eval" } }] };
    expect(issuesOf(bad)[0].pathText).toBe("nodes[0].config.fn");
    const unknownOp = { ...minimal, nodes: [{ name: "a", node_type: "function", config: { op: "exec" } }] };
    expect(issuesOf(unknownOp)[0].message).toMatch(/unknown op "exec"; expected one of: identity, template/);
  });

  it("refuses START and END as declared node names, and malformed names", () => {
    const start = { ...minimal, nodes: [{ ...minimal.nodes[0], name: "__start__" }] };
    expect(issuesOf(start)[0]).toMatchObject({ pathText: "nodes[0].name" });
    const slash = { ...minimal, nodes: [{ ...minimal.nodes[0], name: "a/b" }] };
    expect(issuesOf(slash)[0].pathText).toBe("nodes[0].name");
  });

  it("rejects unknown top-level keys and edges in a form other than { from, to }", () => {
    expect(issuesOf({ ...minimal, schedular: "parallel" })[0]).toMatchObject({ pathText: "schedular", message: 'unknown key "schedular"' });
    expect(issuesOf({ ...minimal, edges: [["__start__", "a"]] })[0].pathText).toBe("edges[0]");
  });

  it("words type problems for a YAML author: missing keys, union types, the one edge form", () => {
    expect(issuesOf({ ...minimal, nodes: [{ name: "a", node_type: "function" }] })[0]).toMatchObject({ pathText: "nodes[0].config", message: 'missing "config" (expected map)' });
    expect(issuesOf({ ...minimal, nodes: 3 })[0].message).toBe("expected list or map, received number");
    expect(issuesOf({ ...minimal, version: { a: 1 } })[0].message).toBe("expected string or number, received map");
    expect(issuesOf({ ...minimal, edges: [["a", "b"]] })[0].message).toBe("an edge is written { from: <node>, to: <node> }");
  });

  it("a custom registry's node types are part of the schema", () => {
    const registry = createBuiltinNodeRegistry().register({
      type: "echo",
      description: "Echoes.",
      configSchema: z.object({ times: z.number() }).strict(),
      create: (name) => new FunctionNode(name, (_c, i) => i[0]?.content),
    });
    const schema = buildGraphSpecSchema(registry);
    expect(schema.safeParse({ ...minimal, nodes: [{ name: "a", node_type: "echo", config: { times: 2 } }] }).success).toBe(true);
    expect(JSON.stringify(graphSpecJsonSchema(registry))).toContain('"echo"');
  });
});

describe("graphSpecJsonSchema", () => {
  const json = graphSpecJsonSchema();
  const text = JSON.stringify(json);

  it("is a draft-7 object schema describing the top-level fields", () => {
    expect(json.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const props = json.properties as Record<string, { description?: string }>;
    expect(Object.keys(props)).toEqual(expect.arrayContaining(["name", "version", "description", "scheduler", "max_iterations", "state", "nodes", "edges", "subgraphs"]));
    for (const key of Object.keys(props)) expect(props[key].description, key).toBeTruthy();
    expect(json.required).toEqual(["name", "nodes"]);
  });

  it("carries every built-in node_type with its description and config keys", () => {
    for (const f of createBuiltinNodeRegistry().list()) {
      expect(text).toContain(`"const":"${f.type}"`);
      expect(text).toContain(JSON.stringify(f.description));
    }
    for (const key of ["seconds", "prompt", "targets", "reduce", "template", "route_if", "then"]) expect(text).toContain(`"${key}"`);
  });

  it("offers only ON_ALL_PREDS as a trigger", () => {
    expect(text).toContain('"const":"ON_ALL_PREDS"');
    expect(text).not.toContain('"ON_RECEIVE"');
  });

  it("serializes to JSON without loss (no functions or cycles)", () => {
    expect(JSON.parse(text)).toEqual(json);
  });
});
