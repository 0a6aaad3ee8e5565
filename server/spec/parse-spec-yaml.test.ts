import { describe, expect, it } from "vitest";
import { SpecError, type SpecIssue } from "@/server/graph/spec/spec-errors";
import { parseSpecYaml, readSpecYaml, validateSpecYaml } from "./parse-spec-yaml";

/** The issues parseSpecYaml throws for `text` (failing the test if it compiles). */
function issuesOf(text: string): readonly SpecIssue[] {
  try {
    parseSpecYaml(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).issues;
  }
  throw new Error("expected the spec to be rejected");
}

const valid = `name: demo
nodes:
  - name: a
    node_type: function
    config: { op: identity }
  - name: b
    node_type: delay
    config: { ms: 1 }
edges:
  - { from: __start__, to: a }
  - { from: a, to: b }
  - { from: b, to: __end__ }
`;

describe("parseSpecYaml", () => {
  it("compiles a valid spec with START and END", () => {
    const { spec, graph } = parseSpecYaml(valid);
    expect(spec.name).toBe("demo");
    expect(graph.nodeNames()).toEqual(expect.arrayContaining(["__start__", "__end__", "a", "b"]));
  });

  it("runs two delays in a row and hands END the payload it was given, not one nested in the other", async () => {
    const text = `name: paced
nodes:
  - { name: first, node_type: delay, config: { ms: 5 } }
  - { name: second, node_type: delay, config: { seconds: 0.005 } }
edges:
  - { from: __start__, to: first }
  - { from: first, to: second }
  - { from: second, to: __end__ }
`;
    const payload = { order: 7, items: ["a", "b"] };
    const { result } = await parseSpecYaml(text).graph.invoke(payload);
    expect(result.result.map((p) => p.content)).toEqual([payload]);
  });

  it("places a bad config value at nodes[i].config.<key>, on the value's line and column", () => {
    const text = valid.replace("config: { ms: 1 }", "config:\n      seconds: soon");
    const [issue] = issuesOf(text);
    expect(issue).toMatchObject({ kind: "config", pathText: "nodes[1].config.seconds", line: 9, column: 16 });
    expect(issue.message).toMatch(/expected number/);
  });

  it("counts lines the same with CRLF line endings", () => {
    const text = valid.replace("config: { ms: 1 }", "config:\n      seconds: soon").replaceAll("\n", "\r\n");
    expect(issuesOf(text)[0]).toMatchObject({ pathText: "nodes[1].config.seconds", line: 9, column: 16 });
  });

  it("rejects ON_RECEIVE with a clear message at the trigger's position", () => {
    const text = valid.replace("    node_type: delay\n", "    node_type: delay\n    trigger: ON_RECEIVE\n");
    const [issue] = issuesOf(text);
    expect(issue).toMatchObject({ pathText: "nodes[1].trigger", line: 8, column: 14 });
    expect(issue.message).toMatch(/ON_RECEIVE is deprecated and not accepted/);
  });

  it("names an unknown node_type and the known ones", () => {
    const [issue] = issuesOf(valid.replace("node_type: delay", "node_type: teleport"));
    expect(issue).toMatchObject({ pathText: "nodes[1].node_type", line: 7, column: 16 });
    expect(issue.message).toBe('unknown node_type "teleport"; expected one of: function, delay, human_input, subgraph, fan_out, join');
  });

  it("points an unknown key at the key itself", () => {
    const [issue] = issuesOf(valid.replace("config: { ms: 1 }", "config: { ms: 1, jitter: 2 }"));
    expect(issue).toMatchObject({ pathText: "nodes[1].config.jitter", line: 8, column: 22, message: 'unknown key "jitter"' });
  });

  it("places a missing key at the object that lacks it", () => {
    const [issue] = issuesOf(valid.replace("config: { op: identity }", "config: { op: template }"));
    expect(issue).toMatchObject({ pathText: "nodes[0].config.template", line: 5, column: 5 });
  });

  it("maps an edge to an unknown node to that edge end", () => {
    const [issue] = issuesOf(valid.replace("{ from: a, to: b }", "{ from: a, to: bee }"));
    expect(issue).toMatchObject({ kind: "reference", pathText: "edges[1].to", line: 11, column: 20, message: 'unknown node "bee"' });
  });

  it("maps topology issues to the line of the offending node", () => {
    const text = valid.replace("edges:\n", "  - name: orphan\n    node_type: function\n    config: { op: identity }\nedges:\n");
    const [issue] = issuesOf(text);
    expect(issue).toMatchObject({ kind: "topology", pathText: "nodes[2]", line: 9, column: 5 });
    expect(issue.message).toMatch(/"orphan" is unreachable/);
  });

  it("maps a node END cannot be reached from to that node", () => {
    const text = valid.replace("  - { from: b, to: __end__ }\n", "  - { from: b, to: a }\n");
    const issues = issuesOf(text);
    expect(issues.map((i) => [i.pathText, i.line])).toEqual([["nodes[0]", 3], ["nodes[1]", 6], ["edges", 9]]);
  });

  it("maps a route target without an edge to the config key naming it", () => {
    const text = valid.replace("config: { op: identity }", "config: { op: route_if, compare: truthy, then: b, else: __end__ }");
    const [issue] = issuesOf(text);
    expect(issue).toMatchObject({ pathText: "nodes[0].config.else", line: 5 });
    expect(issue.message).toMatch(/no edge to "__end__"/);
  });

  it("gives YAML syntax errors a line and column", () => {
    const [issue] = issuesOf("name: demo\nnodes: [a, b\nedges: []\n");
    expect(issue.kind).toBe("syntax");
    expect(issue.line).toBeGreaterThanOrEqual(2);
    expect(issue.column).toBeGreaterThanOrEqual(1);
  });

  it("reports duplicate keys as syntax errors at the duplicate", () => {
    const [issue] = issuesOf("name: demo\nname: again\nnodes: []\n");
    expect(issue).toMatchObject({ kind: "syntax", line: 2, column: 1, message: "Map keys must be unique" });
  });

  it("refuses alias bombs without expanding them", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(", ")}]`)].join("\n");
    const [issue] = issuesOf(bomb);
    expect(issue).toMatchObject({ kind: "syntax", line: 1, column: 1 });
  });

  it("says a document nested too deeply for the parser is too deep, not that its stack overflowed", () => {
    const [issue] = issuesOf(`name: deep\nnodes: ${"[".repeat(5000)}${"]".repeat(5000)}\n`);
    expect(issue).toMatchObject({ kind: "syntax", line: 2 });
    expect(issue.message).toBe("the YAML nests collections too deeply to be read (no spec needs more than a few dozen levels)");
  });

  it("treats an empty document as a schema error at line 1", () => {
    expect(issuesOf("")[0]).toMatchObject({ kind: "schema", pathText: "", line: 1, column: 1 });
  });

  it("never puts a stack trace in a message", () => {
    for (const text of ["{", "name: [", valid.replace("ms: 1", "ms: -1"), "nodes: 3"]) {
      for (const issue of issuesOf(text)) expect(issue.message).not.toMatch(/\n\s+at /);
    }
  });

  it("follows aliases when locating issues", () => {
    const text = `name: demo
cfg: &cfg { seconds: soon }
nodes:
  - { name: a, node_type: delay, config: *cfg }
edges: [{ from: __start__, to: a }]
`;
    const issues = issuesOf(text);
    expect(issues.find((i) => i.pathText === "nodes[0].config.seconds")).toMatchObject({ line: 2 });
    expect(issues.find((i) => i.pathText === "cfg")).toMatchObject({ message: 'unknown key "cfg"', line: 2, column: 1 });
  });

  it("validateSpecYaml lists issues without throwing; readSpecYaml only validates the schema", () => {
    expect(validateSpecYaml(valid)).toEqual([]);
    expect(validateSpecYaml("name: x\nnodes: []\nedges: [{ from: __start__, to: nowhere }]")[0].pathText).toBe("edges[0].to");
    expect(readSpecYaml(valid.replace("to: b }", "to: nowhere }")).name).toBe("demo");
  });
});
