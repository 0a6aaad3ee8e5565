import { describe, expect, it } from "vitest";
import { parseSpecYaml } from "@/server/spec/parse-spec-yaml";
import { CompiledSpecCache } from "./compiled-spec-cache";

/** A compiled spec of `n` function nodes in a chain: n + 2 graph nodes with START and END. */
function chain(n: number) {
  const nodes = Array.from({ length: n }, (_, i) => `  - { name: n${i}, node_type: function, config: { op: identity } }`);
  const edges = ["  - { from: __start__, to: n0 }", ...Array.from({ length: n - 1 }, (_, i) => `  - { from: n${i}, to: n${i + 1} }`), `  - { from: n${n - 1}, to: __end__ }`];
  return parseSpecYaml(["name: c", "nodes:", ...nodes, "edges:", ...edges, ""].join("\n"));
}

describe("CompiledSpecCache", () => {
  it("evicts the least recently used revision past its entry limit", () => {
    const cache = new CompiledSpecCache({ maxEntries: 2, maxNodes: 1_000 });
    const [a, b, c] = [chain(1), chain(1), chain(1)];
    cache.set("a", a);
    cache.set("b", b);
    expect(cache.get("a")).toBe(a); // a is now the most recently used
    cache.set("c", c);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([a, undefined, c]);
    expect(cache.size).toBe(2);
  });

  it("keeps its graphs' nodes within the node budget, and never keeps one larger than the budget", () => {
    const cache = new CompiledSpecCache({ maxEntries: 10, maxNodes: 12 });
    cache.set("five", chain(3)); // 5 nodes
    cache.set("seven", chain(5)); // 7 nodes: 12 in all
    expect(cache.nodeCount).toBe(12);
    cache.set("three", chain(1)); // 3 more: the oldest goes
    expect([cache.get("five"), cache.nodeCount]).toEqual([undefined, 10]);
    cache.set("huge", chain(20));
    expect([cache.get("huge"), cache.size, cache.nodeCount]).toEqual([undefined, 2, 10]);
  });

  it("replaces a revision set twice without counting it twice", () => {
    const cache = new CompiledSpecCache({ maxEntries: 10, maxNodes: 100 });
    const [first, second] = [chain(2), chain(2)];
    cache.set("a", first);
    cache.set("a", second);
    expect([cache.get("a"), cache.size, cache.nodeCount]).toEqual([second, 1, 4]);
  });
});
