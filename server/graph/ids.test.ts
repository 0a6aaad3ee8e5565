import { describe, expect, it, vi } from "vitest";
import { NODE_ID_PATTERN, newNodeId, newSnowflake } from "./ids";

describe("ids", () => {
  it("node ids are node_ + 12 hex timestamp digits + 14 alphanumerics", () => {
    const id = newNodeId(0x0123456789ab);
    expect(id).toMatch(NODE_ID_PATTERN);
    expect(id.slice(5, 17)).toBe("0123456789ab");
    expect(id).toHaveLength(5 + 26);
  });

  it("node ids sort by creation time and do not collide", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => newNodeId(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
  });

  it("snowflakes are 64-bit decimal strings, strictly increasing, carrying their timestamp", () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => BigInt(newSnowflake()));
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
    const ms = Number(ids[0] >> 22n) + 1_704_067_200_000;
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThan(before + 5_000);
    expect(ids[0] < 2n ** 63n).toBe(true);
  });

  it("a snowflake's worker bits are drawn per process, not taken from its pid (containers' servers share PID 1)", async () => {
    const workers = new Set<bigint>();
    for (let i = 0; i < 8; i++) {
      vi.resetModules();
      const fresh = await import("./ids");
      workers.add((BigInt(fresh.newSnowflake()) >> 12n) & 0x3ffn);
    }
    // Eight draws of 10 bits all alike: once in 10^21.
    expect(workers.size).toBeGreaterThan(1);
  });
});
