import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, it } from "vitest";
import { layoutFromJson, layoutToJson, layoutWith } from "@/shared/canvas/elk-layout";
import { edgeId, END, START, type Topology, type TopoNode } from "@/shared/canvas/topology";

// The real ELK (its bundled, in-process build), as the server's worker thread runs it.
const elk = new ELK();

const node = (id: string): TopoNode => ({ id, kind: id === START ? "start" : id === END ? "end" : "node", nodeType: "function", isJoin: false });
function graph(ids: string[], pairs: [string, string][], wrap: boolean): Topology {
  return { nodes: [START, ...ids, END].map(node), edges: pairs.map(([s, t]) => ({ id: edgeId(s, t), source: s, target: t })), wrap };
}

/** map-reduce's shape: START → split → three mappers → reduce → END. */
function fanOut(wrap: boolean): Topology {
  const mappers = ["mapper_a", "mapper_b", "mapper_c"];
  return graph(["split", ...mappers, "reduce"], [[START, "split"], ...mappers.flatMap((m): [string, string][] => [["split", m], [m, "reduce"]]), ["reduce", END]], wrap);
}

/** A chain of `n` steps. */
function chain(n: number): Topology {
  const ids = Array.from({ length: n }, (_, i) => `step_${i + 1}`);
  return graph(ids, [START, ...ids].map((from, i): [string, string] => [from, ids[i] ?? END]), true);
}

/** The zoom that fits a layout into a square of side `side` (React Flow's fit, padding 0.12). */
const fitZoom = (l: { width: number; height: number }, side: number) => side / (1.12 * Math.max(l.width, l.height));

describe("the editor preview's layout (a wrapped topology)", () => {
  it("lays a fan-out top to bottom, its branches side by side: it fits a 1024 px window's preview with names 11 px or larger", async () => {
    const layout = await layoutWith(elk, fanOut(true));
    expect(layout.vertical).toBe(true);
    const box = (id: string) => layout.nodes.get(id)!;
    // START above split above the mappers, which share a row, above reduce above END.
    expect(box(START).y).toBeLessThan(box("split").y);
    expect(new Set(["mapper_a", "mapper_b", "mapper_c"].map((m) => box(m).y)).size).toBe(1);
    expect(box("reduce").y).toBeGreaterThan(box("mapper_a").y);
    expect(box(END).y).toBeGreaterThan(box("reduce").y);
    // The preview's canvas at 1024 px is 573 px wide; 0.85 is its least zoom (13 px names → 11 px).
    expect(fitZoom(layout, 573)).toBeGreaterThanOrEqual(0.85);
  });

  it("keeps a chain left to right, in rows", async () => {
    const layout = await layoutWith(elk, chain(6));
    expect(layout.vertical).toBeUndefined();
    // Most links run to the right, along a row; a row's last leads down to the next row's first.
    const ids = [START, ...Array.from({ length: 6 }, (_, i) => `step_${i + 1}`), END];
    const rightward = ids.slice(1).filter((id, i) => layout.nodes.get(id)!.x > layout.nodes.get(ids[i])!.x).length;
    expect(rightward).toBeGreaterThan((ids.length - 1) / 2);
    expect(new Set(ids.map((id) => layout.nodes.get(id)!.y)).size).toBeGreaterThan(1);
  });

  it("keeps a fan-out left to right on the instance canvas (not wrapped)", async () => {
    const layout = await layoutWith(elk, fanOut(false));
    expect(layout.vertical).toBeUndefined();
    expect(layout.nodes.get("split")!.x).toBeGreaterThan(layout.nodes.get(START)!.x);
  });

  it("lays a graph of over 60 nodes out once, left to right: it pans either way, and ELK's time doubles with a second layout", async () => {
    const mappers = Array.from({ length: 70 }, (_, i) => `mapper_${i}`);
    const wide = graph(["split", ...mappers, "reduce"], [[START, "split"], ...mappers.flatMap((m): [string, string][] => [["split", m], [m, "reduce"]]), ["reduce", END]], true);
    let layouts = 0;
    const counted = { layout: (g: Parameters<typeof elk.layout>[0]) => ((layouts += 1), elk.layout(g)) };
    const layout = await layoutWith(counted, wide);
    expect(layouts).toBe(1);
    expect(layout.vertical).toBeUndefined();
    await layoutWith(counted, fanOut(true));
    expect(layouts).toBe(3);
  });

  it("carries the direction through the JSON the server hands the page", async () => {
    const layout = await layoutWith(elk, fanOut(true));
    expect(layoutFromJson(JSON.parse(JSON.stringify(layoutToJson("k", layout)))).layout.vertical).toBe(true);
  });
});
