import { describe, expect, it } from "vitest";
import { jsonNestsDeeperThan } from "./json-depth";

const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("jsonNestsDeeperThan", () => {
  it("counts arrays and objects together, the top level being depth 1", () => {
    expect(jsonNestsDeeperThan(nested(64), 64)).toBe(false);
    expect(jsonNestsDeeperThan(nested(65), 64)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[]}]}', 3)).toBe(true);
    expect(jsonNestsDeeperThan("42", 1)).toBe(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ s: "[[[[[[{{{{" }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ s: 'a "quoted" [[[ \\ ' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify(["\\", [[1]]]), 2)).toBe(true);
  });

  it("scans 10,000 levels without recursion", () => {
    expect(jsonNestsDeeperThan(nested(10_000), 64)).toBe(true);
  });
});
