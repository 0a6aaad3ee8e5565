import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ELK from "elkjs/lib/elk.bundled.js";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { initialLayout } from "@/components/canvas/initial-layout";
import { boundsOf, fitZoom, RUN_CANVAS } from "@/shared/canvas/canvas-fit";
import { layoutWith, type GraphLayout } from "@/shared/canvas/elk-layout";
import { edgeId, END, START, type Topology, withJoins } from "@/shared/canvas/topology";

// The real ELK (its bundled, in-process build), as the server's worker thread runs it.
const elk = new ELK();
const DIR = path.join(process.cwd(), "config/graphs");

/** An example's run canvas topology (instance-topology.ts's shape) from its YAML. */
function exampleTopology(file: string): Topology {
  const spec = parseYaml(readFileSync(path.join(DIR, file), "utf8")) as { nodes: { name: string; node_type: string }[]; edges: { from: string; to: string }[] };
  const nodes = [
    { id: START, kind: "start" as const, nodeType: "", isJoin: false },
    ...spec.nodes.map((n) => ({ id: n.name, kind: "node" as const, nodeType: n.node_type, isJoin: false })),
    { id: END, kind: "end" as const, nodeType: "", isJoin: false },
  ];
  const edges = spec.edges.map((e) => ({ id: edgeId(e.from, e.to), source: e.from, target: e.to }));
  return { nodes: withJoins(nodes, edges), edges, runStates: true, wrap: "wide" };
}

/** The layout's rows (or columns, drawn top to bottom): node ids grouped by the band their centre is in. */
function bands(layout: GraphLayout): string[][] {
  const byBand: { at: number; ids: string[] }[] = [];
  const entries = [...layout.nodes.entries()].map(([id, b]) => ({ id, c: layout.vertical ? b.x + b.width / 2 : b.y + b.height / 2 }));
  for (const e of entries.sort((a, b) => a.c - b.c)) {
    const band = byBand.find((x) => Math.abs(x.at - e.c) < 60);
    if (band) band.ids.push(e.id);
    else byBand.push({ at: e.c, ids: [e.id] });
  }
  return byBand.map((b) => b.ids.sort());
}

describe("the run canvas's stand-in layout (shown until ELK's first layout)", () => {
  // Measured (the largest move of a node on the fitted 1024 px run canvas when ELK's layout replaces the
  // stand-in): one-row stand-in 309-418 px for the examples that wrap, 260 px for the fan-outs; now
  // 20-44 px (same rows) and 128 px (same columns, ELK does not centre START above a fan-out).
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".yml")).sort()) {
    it(`${file}: drawn in ELK's rows (or columns)`, async () => {
      const t = exampleTopology(file);
      const elkLayout = await layoutWith(elk, t);
      const stand = initialLayout(t);
      expect(stand.vertical ?? false).toBe(elkLayout.vertical ?? false);
      if (!elkLayout.vertical) expect(bands(stand)).toEqual(bands(elkLayout));
      expect(largestMove(t, stand, elkLayout)).toBeLessThan(elkLayout.vertical ? 150 : 50);
    });
  }

  it("the editor's preview (wrap: square) keeps its one-row stand-in", () => {
    const t = { ...exampleTopology("paced-pipeline.yml"), wrap: "square" as const };
    expect(bands(initialLayout(t))).toHaveLength(1);
  });
});

/** The largest move of a node on the fitted run canvas (React Flow's fitView, zoom at most 1.5) from one layout to the other. */
function largestMove(t: Topology, from: GraphLayout, to: GraphLayout): number {
  const place = (l: GraphLayout) => {
    const b = boundsOf(l.nodes.values())!;
    const z = Math.min(fitZoom(b, RUN_CANVAS), 1.5);
    return (id: string) => {
      const n = l.nodes.get(id)!;
      return { x: (n.x - b.x - b.width / 2) * z, y: (n.y - b.y - b.height / 2) * z };
    };
  };
  const a = place(from);
  const e = place(to);
  return Math.max(...t.nodes.map((n) => Math.hypot(a(n.id).x - e(n.id).x, a(n.id).y - e(n.id).y)));
}
