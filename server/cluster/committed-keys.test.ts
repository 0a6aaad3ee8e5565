import { describe, expect, it } from "vitest";
import { CommittedKeys } from "./committed-keys";

describe("CommittedKeys: keys handed on when they commit out of order", () => {
  it("hands each key above the floor on once; a read starts below a key passed over until it commits", () => {
    const keys = new CommittedKeys(10, { keys: 100, ms: 1_000 });
    expect(keys.take(10)).toBe(false);
    expect([11, 13, 14].map((k) => keys.take(k))).toEqual([true, true, true]);
    expect(keys.take(13)).toBe(false);
    expect(keys.readFrom()).toBe(11); // 12 may still commit
    expect(keys.take(12)).toBe(true);
    expect(keys.readFrom()).toBe(14);
  });

  it("gives a missing key up after `bounds.keys` later keys or `bounds.ms`, and hands it on should it commit even then", () => {
    let now = 0;
    const keys = new CommittedKeys(0, { keys: 4, ms: 1_000 }, () => now);
    keys.take(2); // 1 missing
    expect(keys.readFrom()).toBe(0);
    now = 1_001;
    expect(keys.readFrom()).toBe(2);
    keys.take(4); // 3 missing (since 1001)
    for (const k of [5, 6]) keys.take(k);
    expect(keys.readFrom()).toBe(2);
    keys.take(7); // 3 is 4 keys below the highest
    expect(keys.readFrom()).toBe(7);
    expect(keys.take(3)).toBe(true);
    expect(keys.waitingFor).toBe(0);
  });
});
