import { describe, expect, it } from "vitest";
import { safeNextPath } from "./safe-next";

describe("safeNextPath", () => {
  it.each([
    ["/graphs", "/graphs"],
    ["/instances/abc?version=2#node", "/instances/abc?version=2#node"],
    ["/graphs/my spec", "/graphs/my%20spec"],
  ])("keeps the same-origin path %j", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    ["a missing value", null],
    ["an empty value", ""],
    ["a relative path", "graphs"],
    ["a protocol-relative URL", "//evil.example"],
    ["a backslash that browsers read as a slash", "/\\evil.example"],
    ["a tab that the URL parser drops", "/\t/evil.example"],
    ["a newline (an invalid Location header)", "/\n/x"],
    ["a carriage return", "/\r\nSet-Cookie: a=b"],
    ["an absolute URL", "https://evil.example/"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["an encoded backslash decoded once by the caller", decodeURIComponent("/%5Cevil.example")],
  ])("refuses %s", (_what, next) => {
    expect(safeNextPath(next)).toBe("/");
    expect(safeNextPath(next, "/graphs")).toBe("/graphs");
  });
});
