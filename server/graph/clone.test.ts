import { describe, expect, it } from "vitest";
import { cloneData } from "./clone";

describe("cloneData", () => {
  it("copies plain data as structuredClone does", () => {
    const nested = { a: 1, b: "two", c: null, d: undefined, e: [1, { f: true }], g: { h: { i: [] } }, big: 10n };
    const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
    const bare = Object.assign(Object.create(null), { x: 1 });
    for (const value of [nested, sparse, bare, [], {}, 0, "s", null, undefined, true]) {
      const copied = cloneData(value);
      expect(copied).toStrictEqual(structuredClone(value));
      if (typeof value === "object" && value !== null) expect(copied).not.toBe(value);
    }
    expect(1 in cloneData(sparse)).toBe(false);
    expect(Object.getPrototypeOf(cloneData(bare))).toBe(Object.prototype);
  });

  it("shares nothing with its source, at any depth", () => {
    const source = { list: [{ n: 1 }], inner: { deep: { n: 2 } } };
    const copied = cloneData(source);
    copied.list[0].n = 9;
    copied.inner.deep.n = 9;
    expect(source).toEqual({ list: [{ n: 1 }], inner: { deep: { n: 2 } } });
  });

  it("keeps shared references shared and cycles cyclic", () => {
    const shared = { n: 1 };
    const source: Record<string, unknown> = { a: shared, b: [shared] };
    source.self = source;
    const copied = cloneData(source) as { a: object; b: object[]; self: unknown };
    expect(copied.a).toBe(copied.b[0]);
    expect(copied.a).not.toBe(shared);
    expect(copied.self).toBe(copied);
  });

  it("hands other objects to structuredClone, and raises what it raises", () => {
    const when = new Date(0);
    const copied = cloneData({ when, map: new Map([[1, { x: 1 }]]), set: new Set([1]) });
    expect(copied.when).toEqual(when);
    expect(copied.when).not.toBe(when);
    expect(copied.map.get(1)).toEqual({ x: 1 });
    expect(copied.set.has(1)).toBe(true);
    expect(() => cloneData({ f: () => 1 })).toThrow();
    expect(() => cloneData({ s: Symbol("s") })).toThrow();
  });

  it("reads a getter's value, as structuredClone does", () => {
    const source = {
      get computed() {
        return 42;
      },
    };
    expect(cloneData(source)).toStrictEqual({ computed: 42 });
  });
});
