import { describe, expect, it } from "vitest";
import { fastTopologyScan } from "@/components/graphs/fast-topology-scan";
import { yamlToTopology } from "@/components/graphs/yaml-topology";

/** 20 chains of `depth` between a fan_out and a join, with one cross edge (the web bench's shape). */
function wideSpec(chains = 20, depth = 10): string {
  const lines = ["name: wide", "nodes:", "  - name: split", "    node_type: fan_out"];
  for (let k = 0; k < chains; k++) {
    for (let j = 0; j < depth; j++) lines.push(`  - name: c${k}_${j}`, "    node_type: function", `    description: "chain ${k} step ${j}" # why`, "    config: { op: identity }");
  }
  lines.push("  - name: merge", "    node_type: join", "edges:", "  - { from: __start__, to: split }");
  for (let k = 0; k < chains; k++) {
    lines.push(`  - { from: split, to: c${k}_0 }`);
    for (let j = 0; j + 1 < depth; j++) lines.push(`  - { from: c${k}_${j}, to: c${k}_${j + 1} }`);
    lines.push(`  - { from: c${k}_${depth - 1}, to: merge }`);
  }
  lines.push("  - { from: c3_4, to: c1_5 }", "  - { from: merge, to: __end__ }");
  return lines.join("\n") + "\n";
}

const mapForm = `name: m
nodes:
  ask:
    node_type: human_input
    description: Ask
    config:
      node_type: not-this-one
  answer:
    node_type: function
edges:
  - from: __start__
    to: ask
  - { from: ask, to: answer }
  - { from: answer, to: __end__ }
`;

function full(text: string) {
  const r = yamlToTopology(text);
  if (!r.ok) throw new Error(r.problem.message);
  return r.topology;
}

describe("fastTopologyScan", () => {
  it("reads the same topology as the full parse", () => {
    for (const text of [wideSpec(), mapForm]) expect(fastTopologyScan(text)).toEqual(full(text));
  });

  it("follows edits the same way when most lines were read before (the line cache)", () => {
    const base = wideSpec();
    expect(fastTopologyScan(base)).toEqual(full(base));
    const edits = [
      base.replace("{ from: c3_4, to: c1_5 }", "{ from: c3_4, to: c11_5 }"),
      base.replace('"chain 7 step 7"', '"chain 7 step 7x"'),
      base.replace("  - name: c2_3\n", "\n  - name: c2_3\n"),
      base.replace("    node_type: join\n", "    node_type: function\n"),
    ];
    for (const text of edits) expect(fastTopologyScan(text)).toEqual(full(text));
    // And back: the cached lines of the edited texts do not leak into the original.
    expect(fastTopologyScan(base)).toEqual(full(base));
  });

  it("answers null for what it does not read, before and after the lines were cached", () => {
    const anchors = "name: a\nnodes:\n  - &x\n    name: a\nedges: []\n";
    expect(fastTopologyScan(anchors)).toBeNull();
    expect(fastTopologyScan(anchors)).toBeNull();
    expect(fastTopologyScan("name: a\nnodes:\n  - name: a\nedges:\n  - { from: __start__,\n      to: a }\n")).toBeNull();
  });
});
