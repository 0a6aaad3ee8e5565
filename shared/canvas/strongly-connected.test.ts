import { describe, expect, it } from "vitest";
import { stronglyConnected } from "./strongly-connected";
import { withJoins } from "./topology";

const e = (source: string, target: string) => ({ id: `${source}->${target}`, source, target });
const node = (id: string) => ({ id, kind: "node" as const, nodeType: "function", isJoin: false });

describe("stronglyConnected", () => {
  it("puts the nodes of a loop in one component and the rest apart", () => {
    const c = stronglyConnected(["s", "tick", "check", "done"], [e("s", "tick"), e("tick", "check"), e("check", "tick"), e("check", "done")]);
    expect(c.get("tick")).toBe(c.get("check"));
    expect(new Set([c.get("s"), c.get("tick"), c.get("done")]).size).toBe(3);
  });

  it("handles a 20,000-node chain without recursion", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `n${i}`);
    const edges = ids.slice(1).map((id, i) => e(ids[i], id));
    edges.push(e(ids.at(-1)!, ids[0]));
    const c = stronglyConnected(ids, edges);
    expect(new Set(c.values()).size).toBe(1);
  });
});

describe("withJoins", () => {
  it("marks a node that waits for several branches, not a loop's entry", () => {
    const nodes = ["tick", "check", "a", "b", "writer"].map(node);
    const edges = [e("__start__", "tick"), e("tick", "check"), e("check", "tick"), e("check", "a"), e("check", "b"), e("a", "writer"), e("b", "writer")];
    const marked = withJoins(nodes, edges);
    expect(marked.filter((n) => n.isJoin).map((n) => n.id)).toEqual(["writer"]);
  });

  it("does not mark review-cycle's coder (start and its reviewer's loop)", () => {
    const nodes = ["coder", "reviewer"].map(node);
    const edges = [e("__start__", "coder"), e("coder", "reviewer"), e("reviewer", "coder"), e("reviewer", "__end__")];
    expect(withJoins(nodes, edges).some((n) => n.isJoin)).toBe(false);
  });
});
