import { describe, expect, it } from "vitest";
import { holdsNul, jsonTextMessage, jsonTextProblem } from "./json-text";

const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("jsonTextProblem: nesting", () => {
  it("counts arrays and objects together, the top level being depth 1", () => {
    expect(jsonTextProblem(nested(64), 64)).toBeNull();
    expect(jsonTextProblem(nested(65), 64)).toBe("too-deep");
    expect(jsonTextProblem('{"a":[{"b":1}]}', 3)).toBeNull();
    expect(jsonTextProblem('{"a":[{"b":[]}]}', 3)).toBe("too-deep");
    expect(jsonTextProblem("42", 1)).toBeNull();
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(jsonTextProblem(JSON.stringify({ s: "[[[[[[{{{{" }), 1)).toBeNull();
    expect(jsonTextProblem(JSON.stringify({ s: 'a "quoted" [[[ \\ ' }), 1)).toBeNull();
    expect(jsonTextProblem(JSON.stringify(["\\", [[1]]]), 2)).toBe("too-deep");
  });

  it("scans 10,000 levels without recursion", () => {
    expect(jsonTextProblem(nested(10_000), 64)).toBe("too-deep");
  });
});

describe("jsonTextProblem: U+0000", () => {
  it("finds the character in a string or a key, as JSON.stringify writes it", () => {
    expect(jsonTextProblem(JSON.stringify({ input: "a\u0000b" }), 64)).toBe("nul");
    expect(jsonTextProblem(JSON.stringify({ "k\u0000": 1 }), 64)).toBe("nul");
    expect(jsonTextProblem('["\\U0000"]', 64)).toBeNull(); // not an escape JSON knows
  });

  it("does not mistake an escaped backslash followed by u0000 for it", () => {
    const text = JSON.stringify({ path: "C:\\u0000" }); // a backslash, then the letters u0000
    expect(JSON.parse(text).path).toBe("C:\\u0000");
    expect(jsonTextProblem(text, 64)).toBeNull();
  });

  it("says what to do", () => {
    expect(jsonTextMessage("nul", "the body", 64)).toBe("the body holds the character U+0000 (NUL), which Modex does not store: remove it");
    expect(holdsNul("a\u0000")).toBe(true);
    expect(holdsNul("a\\u0000")).toBe(false);
  });
});
