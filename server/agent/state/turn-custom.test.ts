import { describe, expect, it } from "vitest";
import { TurnCustomKey, TurnCustomMap } from "./turn-custom";

const COUNT = new TurnCustomKey<number>("count");
const FLAG = new TurnCustomKey<true>("flag");

describe("TurnCustomMap", () => {
  it("stores values under typed keys", () => {
    const map = new TurnCustomMap();
    expect(map.get(COUNT)).toBeUndefined();
    map.set(COUNT, 3);
    expect(map.get(COUNT)).toBe(3);
    expect(map.has(COUNT)).toBe(true);
  });

  it("pop is one-shot: the value is removed when read", () => {
    const map = new TurnCustomMap();
    map.set(FLAG, true);
    expect(map.pop(FLAG)).toBe(true);
    expect(map.has(FLAG)).toBe(false);
    expect(map.pop(FLAG)).toBeUndefined();
  });

  it("getOrInit initialises once", () => {
    const map = new TurnCustomMap();
    expect(map.getOrInit(COUNT, () => 1)).toBe(1);
    expect(map.getOrInit(COUNT, () => 2)).toBe(1);
  });

  it("round-trips through JSON for snapshots", () => {
    const map = new TurnCustomMap();
    map.set(COUNT, 7);
    const copy = TurnCustomMap.fromJSON(JSON.parse(JSON.stringify(map)) as Record<string, unknown>);
    expect(copy.get(COUNT)).toBe(7);
  });
});
