import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, it } from "vitest";
import { boundsOf, fitZoom as fitOnCanvas, RUN_CANVAS } from "@/shared/canvas/canvas-fit";
import { layoutFromJson, layoutToJson, layoutWith } from "@/shared/canvas/elk-layout";
import { edgeId, END, START, type Topology, type TopoNode, type WrapShape } from "@/shared/canvas/topology";

// The real ELK (its bundled, in-process build), as the server's worker thread runs it.
const elk = new ELK();

const node = (id: string): TopoNode => ({ id, kind: id === START ? "start" : id === END ? "end" : "node", nodeType: "function", isJoin: false });
function graph(ids: string[], pairs: [string, string][], wrap: WrapShape | undefined): Topology {
  return { nodes: [START, ...ids, END].map(node), edges: pairs.map(([s, t]) => ({ id: edgeId(s, t), source: s, target: t })), wrap };
}

/** map-reduce's shape: START → split → three mappers → reduce → END. */
function fanOut(wrap: WrapShape | undefined): Topology {
  const mappers = ["mapper_a", "mapper_b", "mapper_c"];
  return graph(["split", ...mappers, "reduce"], [[START, "split"], ...mappers.flatMap((m): [string, string][] => [["split", m], [m, "reduce"]]), ["reduce", END]], wrap);
}

/** A chain of `n` steps. */
function chain(n: number): Topology {
  const ids = Array.from({ length: n }, (_, i) => `step_${i + 1}`);
  return graph(ids, [START, ...ids].map((from, i): [string, string] => [from, ids[i] ?? END]), "square");
}

/** The zoom that fits a layout into a square of side `side` (React Flow's fit, padding 0.12). */
const fitZoom = (l: { width: number; height: number }, side: number) => side / (1.12 * Math.max(l.width, l.height));

describe("the editor preview's layout (a wrapped topology)", () => {
  it("lays a fan-out top to bottom, its branches side by side: it fits a 1024 px window's preview with names 11 px or larger", async () => {
    const layout = await layoutWith(elk, fanOut("square"));
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

  it("keeps an unwrapped topology left to right, in one row", async () => {
    const layout = await layoutWith(elk, fanOut(undefined));
    expect(layout.vertical).toBeUndefined();
    expect(layout.nodes.get("split")!.x).toBeGreaterThan(layout.nodes.get(START)!.x);
  });

  it("lays a graph of over 60 nodes out once, left to right: it pans either way, and ELK's time doubles with a second layout", async () => {
    const mappers = Array.from({ length: 70 }, (_, i) => `mapper_${i}`);
    const wide = graph(["split", ...mappers, "reduce"], [[START, "split"], ...mappers.flatMap((m): [string, string][] => [["split", m], [m, "reduce"]]), ["reduce", END]], "square");
    let layouts = 0;
    const counted = { layout: (g: Parameters<typeof elk.layout>[0]) => ((layouts += 1), elk.layout(g)) };
    const layout = await layoutWith(counted, wide);
    expect(layouts).toBe(1);
    expect(layout.vertical).toBeUndefined();
    await layoutWith(counted, fanOut("square"));
    expect(layouts).toBe(3);
  });

  it("carries the direction through the JSON the server hands the page", async () => {
    const layout = await layoutWith(elk, fanOut("square"));
    expect(layoutFromJson(JSON.parse(JSON.stringify(layoutToJson("k", layout)))).layout.vertical).toBe(true);
  });
});

/** The zoom React Flow's fit gives a layout on the run canvas at 1024 px (node bounds, its padding). */
function runFit(layout: Awaited<ReturnType<typeof layoutWith>>, canvas: { width: number; height: number } = RUN_CANVAS): number {
  return fitOnCanvas(boundsOf(layout.nodes.values())!, canvas);
}

/** A run's topology (cards with a state line) of a chain of `n` steps. */
const runChain = (n: number): Topology => ({ ...chain(n), wrap: "wide", runStates: true });

/** How many rows a layout's nodes sit in (by their centres: START's pill is lower than a card). */
const rows = (layout: Awaited<ReturnType<typeof layoutWith>>) => new Set([...layout.nodes.values()].map((b) => Math.round(b.y + b.height / 2))).size;

describe("the instance canvas's layout (wrap: wide)", () => {
  it("keeps a short chain in one row, as the run flows, when it reads whole at 1024 px", async () => {
    const layout = await layoutWith(elk, runChain(2));
    expect(rows(layout)).toBe(1);
    expect(runFit(layout)).toBeGreaterThanOrEqual(RUN_CANVAS.minZoom);
  });

  it("wraps a chain too wide for one row (approval-gate's six steps) into rows that fit whole at the readable zoom", async () => {
    const oneRow = await layoutWith(elk, { ...runChain(6), wrap: undefined });
    expect(runFit(oneRow)).toBeLessThan(RUN_CANVAS.minZoom);
    const layout = await layoutWith(elk, runChain(6));
    expect(layout.vertical).toBeUndefined();
    expect(rows(layout)).toBeGreaterThan(1);
    expect(runFit(layout)).toBeGreaterThanOrEqual(RUN_CANVAS.minZoom);
  });

  it("lays a fan-out (map-reduce's shape) the way that fits the run canvas best", async () => {
    const wide = { ...fanOut("wide"), runStates: true };
    const layout = await layoutWith(elk, wide);
    const oneRow = await layoutWith(elk, { ...wide, wrap: undefined });
    expect(runFit(layout)).toBeGreaterThan(runFit(oneRow));
    // Within a pixel or two of the readable zoom: centred at it, it is whole in the canvas.
    expect(runFit(layout)).toBeGreaterThanOrEqual(RUN_CANVAS.minZoom - 0.01);
  });

  it("lays a run of over 60 nodes out once, in one row: it pans either way", async () => {
    let layouts = 0;
    const counted = { layout: (g: Parameters<typeof elk.layout>[0]) => ((layouts += 1), elk.layout(g)) };
    const layout = await layoutWith(counted, { ...chain(70), wrap: "wide", runStates: true });
    expect(layouts).toBe(1);
    expect(rows(layout)).toBe(1);
  });
});
