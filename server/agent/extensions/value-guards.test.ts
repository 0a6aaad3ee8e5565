import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/messages";
import { okResult } from "../tools/tool-result";
import { messagesOr, stringOr, toolResultOr } from "./value-guards";

describe("value guards: a TRANSFORM's value is used only when it has the right shape", () => {
  it("stringOr keeps the original for anything but a string", () => {
    expect(stringOr("new", "old")).toBe("new");
    expect(stringOr("", "old")).toBe("");
    expect(stringOr(42, "old")).toBe("old");
    expect(stringOr(undefined, "old")).toBe("old");
  });

  it("messagesOr accepts only a list of valid chat messages", () => {
    const original: ChatMessage[] = [{ role: "user", content: "hi" }];
    expect(messagesOr([{ role: "system", content: "s" }], original)).toEqual([{ role: "system", content: "s" }]);
    expect(messagesOr([{ role: "robot", content: "x" }], original)).toBe(original);
    expect(messagesOr("hi", original)).toBe(original);
  });

  it("toolResultOr accepts a legal result for the same call only", () => {
    const original = okResult("c1", "add", "5");
    expect(toolResultOr({ ...original, content: "5!" }, original)).toEqual({ ...original, content: "5!" });
    expect(toolResultOr(okResult("c2", "add", "6"), original)).toBe(original);
    expect(toolResultOr({ content: "5" }, original)).toBe(original);
  });
});
