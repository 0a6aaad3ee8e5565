import { describe, expect, it } from "vitest";
import { GraphPayloadSchema, graphPayload, isGraphPayload, isResumeSignal, resumeSignal } from "./payload";

describe("GraphPayload", () => {
  it("is frozen", () => {
    const p = graphPayload({ content: "hi", metadata: { a: 1 } });
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.metadata)).toBe(true);
  });

  it("is strict: unknown keys are rejected", () => {
    expect(() => graphPayload({ content: 1, extra: true } as never)).toThrow();
  });

  it("builds and recognises exactly what its schema accepts, with or without running it", () => {
    const outcome = (make: () => unknown) => {
      try {
        const value = make() as object;
        return { keys: Object.keys(value), value: { ...value } };
      } catch {
        return "rejected";
      }
    };
    const inputs: unknown[] = [
      { content: "x" },
      { content: 1, source: "a" },
      { source: "a", content: [1] },
      { content: undefined },
      { content: 1, source: undefined },
      { content: 1, source: 2 },
      { content: 1, metadata: { a: 1 } },
      { content: 1, extra: true },
      {},
      Object.assign(Object.create({ inherited: 1 }), { content: 1 }),
      Object.assign(Object.create(null), { content: 1 }),
    ];
    for (const input of inputs) {
      expect(outcome(() => graphPayload(input as never))).toEqual(outcome(() => GraphPayloadSchema.parse(input)));
      expect(isGraphPayload(input)).toBe(GraphPayloadSchema.safeParse(input).success && "content" in (input as object));
    }
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
