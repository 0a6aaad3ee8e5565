import { describe, expect, it } from "vitest";
import { unwrapValue } from "./spec-values";

describe("unwrapValue", () => {
  it("gives a subgraph completion's result, one value or a list", () => {
    expect(unwrapValue({ subgraph: "inner", result: ["a"] })).toBe("a");
    expect(unwrapValue({ subgraph: "inner", result: ["a", "b"] })).toEqual(["a", "b"]);
  });

  it("gives the input of a delay tick an older Modex left in a ledger, however nested", () => {
    const tick = (input: unknown) => ({ tick: true, sleptMs: 10, input });
    expect(unwrapValue(tick(tick({ n: 1 })))).toEqual({ n: 1 });
  });

  it("leaves an object that only looks partly like a tick as it is", () => {
    expect(unwrapValue({ tick: true, input: 1 })).toEqual({ tick: true, input: 1 });
  });
});
