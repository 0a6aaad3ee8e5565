import { describe, expect, it } from "vitest";
import { followAfter, isLayoutChange, panToShow } from "@/components/canvas/view-follow";

describe("followAfter", () => {
  it("keeps a view moved by hand through new node sets, until the fit button", () => {
    let f = followAfter("readable", "moved-by-hand");
    expect(f).toBe("kept");
    f = followAfter(f, "new-node-set");
    expect(f).toBe("kept");
    expect(followAfter(f, "fit-button")).toBe("whole");
  });

  it("fits a new node set readably again, after the fit button too", () => {
    expect(followAfter("readable", "new-node-set")).toBe("readable");
    expect(followAfter("whole", "new-node-set")).toBe("readable");
  });
});

describe("isLayoutChange", () => {
  const at = { window: "1280x800", announced: 0 };
  it("is a resized window or an announced change", () => {
    expect(isLayoutChange(at, { ...at, window: "1100x800" })).toBe(true);
    expect(isLayoutChange(at, { ...at, announced: 1 })).toBe(true);
  });
  it("is not a size change with neither (a banner came or went)", () => {
    expect(isLayoutChange(at, { ...at })).toBe(false);
  });
});

describe("panToShow", () => {
  const canvas = { width: 1000, height: 500 };
  const view = { x: 0, y: 0, zoom: 1 };
  it("leaves a node in view where it is", () => {
    expect(panToShow({ x: 100, y: 100, width: 160, height: 60 }, view, canvas)).toBeNull();
  });
  it("brings a node past the right edge in, to the margin, keeping the zoom's scale", () => {
    expect(panToShow({ x: 1100, y: 100, width: 160, height: 60 }, view, canvas)).toEqual({ x: -308, y: 0 });
    // At zoom 0.5 the node is at 550..630 on screen: in view.
    expect(panToShow({ x: 1100, y: 100, width: 160, height: 60 }, { x: 0, y: 0, zoom: 0.5 }, canvas)).toBeNull();
  });
  it("brings a node left of (or above) the view in from that side", () => {
    expect(panToShow({ x: 100, y: -80, width: 160, height: 60 }, { x: -300, y: 0, zoom: 1 }, canvas)).toEqual({ x: -52, y: 128 });
  });
});
