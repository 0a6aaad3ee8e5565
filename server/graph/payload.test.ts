import { describe, expect, it } from "vitest";
import { graphPayload, isGraphPayload, isResumeSignal, resumeSignal } from "./payload";

describe("GraphPayload", () => {
  it("is frozen", () => {
    const p = graphPayload({ content: "hi", metadata: { a: 1 } });
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.metadata)).toBe(true);
  });

  it("is strict: unknown keys are rejected", () => {
    expect(() => graphPayload({ content: 1, extra: true } as never)).toThrow();
  });

  it("is recognised by shape", () => {
    expect(isGraphPayload(graphPayload({ content: 1 }))).toBe(true);
    expect(isGraphPayload({ content: 1, source: "a" })).toBe(true);
    expect(isGraphPayload({ text: 1 })).toBe(false);
    expect(isGraphPayload("x")).toBe(false);
  });

  it("resume signals are plain, serialisable markers", () => {
    const s = resumeSignal({ ok: true });
    expect(isResumeSignal(JSON.parse(JSON.stringify(s)))).toBe(true);
    expect(isResumeSignal({ value: 1 })).toBe(false);
  });
});
