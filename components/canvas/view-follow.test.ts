import { describe, expect, it } from "vitest";
import { followAfter, isLayoutChange } from "@/components/canvas/view-follow";

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
