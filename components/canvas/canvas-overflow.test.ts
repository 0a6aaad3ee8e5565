import { describe, expect, it } from "vitest";
import { boundsOf, overflows } from "@/components/canvas/canvas-overflow";

describe("boundsOf", () => {
  it("holds every box", () => {
    expect(boundsOf([{ x: 10, y: 20, width: 100, height: 40 }, { x: 300, y: -10, width: 50, height: 50 }])).toEqual({ x: 10, y: -10, width: 340, height: 70 });
  });
  it("is null for no boxes", () => {
    expect(boundsOf([])).toBeNull();
  });
});

describe("overflows", () => {
  const graph = { x: 0, y: 0, width: 1000, height: 200 };
  const canvas = { width: 600, height: 400 };
  it("is false when the graph fits the canvas at this view", () => {
    expect(overflows(graph, { x: 20, y: 20, zoom: 0.5 }, canvas)).toBe(false);
  });
  it("is true when the graph runs past the right edge (a wide graph at a readable zoom)", () => {
    expect(overflows(graph, { x: 24, y: 100, zoom: 1 }, canvas)).toBe(true);
  });
  it("is true when the graph was panned past the top or left edge", () => {
    expect(overflows(graph, { x: -50, y: 20, zoom: 0.5 }, canvas)).toBe(true);
    expect(overflows(graph, { x: 20, y: -30, zoom: 0.5 }, canvas)).toBe(true);
  });
  it("forgives a pixel of rounding at the edges", () => {
    expect(overflows(graph, { x: -1, y: 0, zoom: 0.6 }, canvas)).toBe(false);
  });
  it("is false before the canvas has a size", () => {
    expect(overflows(graph, { x: 0, y: 0, zoom: 1 }, { width: 0, height: 0 })).toBe(false);
  });
});
