import { describe, expect, it } from "vitest";
import { layoutKey, type Topology } from "@/shared/canvas/topology";
import { initialLayout } from "@/components/canvas/initial-layout";
import { MAX_WIDTH, MIN_WIDTH, NAME_LINE, NAME_MAX_LINES, monoWidth, nameWidth, nodeCard, smallTextWidth, stateText } from "@/shared/canvas/node-card";
import { NODE_STATE_LABEL } from "@/shared/canvas/node-state";

const INNER = (card: { width: number; stateLine: boolean }) => card.width - 26 - (card.stateLine ? 16 : 0);

describe("node cards", () => {
  it("keep the smallest size for a short name, and add a state line on a run's canvas", () => {
    expect(nodeCard("fetch", false)).toMatchObject({ width: MIN_WIDTH, height: 52, nameLines: ["fetch"] });
    const run = nodeCard("fetch", true);
    expect(run.height).toBe(52 + 16);
    // The longest state label with a caption fits without cutting.
    expect(smallTextWidth(`${NODE_STATE_LABEL.waiting} · 99 runs`)).toBeLessThanOrEqual(run.width - 26);
  });

  it("grow with the name up to the widest card, then wrap it onto more lines, each within the card", () => {
    const medium = nodeCard("summarize_tickets_quickly", false);
    expect(medium.width).toBeGreaterThan(MIN_WIDTH);
    expect(medium.nameLines).toEqual(["summarize_tickets_quickly"]);
    for (const name of ["summarize_each_customer_support_ticket_with_citations", "ProcessIncomingCustomerSupportTicketsQuickly", "x".repeat(70)]) {
      for (const run of [false, true]) {
        const card = nodeCard(name, run);
        expect(card.width).toBeLessThanOrEqual(MAX_WIDTH);
        expect(card.nameLines.length).toBeGreaterThan(1);
        expect(card.nameLines.length).toBeLessThanOrEqual(NAME_MAX_LINES);
        expect(card.height).toBe(16 + card.nameLines.length * NAME_LINE + 2 + 16 + (run ? 16 : 0));
        for (const line of card.nameLines) expect(nameWidth(line)).toBeLessThanOrEqual(INNER(card));
        expect(card.nameLines.join("")).toBe(name);
      }
    }
    // Breaks after a separator, or between camelCase words.
    expect(nodeCard("summarize_each_customer_support_ticket_with_citations", false).nameLines.every((l, i, all) => i === all.length - 1 || l.endsWith("_"))).toBe(true);
    expect(nodeCard("ProcessIncomingCustomerSupportTicketsQuickly", false).nameLines[1]).toMatch(/^[A-Z]/);
  });

  it("balance a wrapped name's lines, so the card is no wider than it needs", () => {
    const card = nodeCard("a_really_quite_long_branch_name", true);
    expect(card.nameLines).toEqual(["a_really_quite_", "long_branch_name"]);
    expect(card.width).toBe(nodeCard("fetch", true).width);
  });

  it("shorten only a name longer than its lines, with an ellipsis", () => {
    const card = nodeCard("word_".repeat(40), false);
    expect(card.nameLines).toHaveLength(NAME_MAX_LINES);
    expect(card.nameLines[NAME_MAX_LINES - 1].endsWith("…")).toBe(true);
  });

  it("fit every engine node type in the smallest card", () => {
    for (const t of ["function", "delay", "human_input", "subgraph", "fan_out", "join", "agent"]) expect(monoWidth(t)).toBeLessThanOrEqual(MIN_WIDTH - 26);
  });

  it("say the state, with a caption after it unless the caption names the state", () => {
    expect(stateText("waiting", undefined)).toBe("waiting for input");
    expect(stateText("waiting", "2 runs")).toBe("waiting for input · 2 runs");
    expect(stateText("running", "running · 2/3")).toBe("running · 2/3");
    expect(stateText("completed", "2/2 inner")).toBe("completed · 2/2 inner");
    expect(stateText(undefined, undefined)).toBe("not run");
  });

  it("are what the layout places: boxes sized per card, keyed apart on a run's canvas", () => {
    const nodes = [
      { id: "__start__", kind: "start" as const, nodeType: "", isJoin: false },
      { id: "summarize_each_customer_support_ticket_with_citations", kind: "node" as const, nodeType: "function", isJoin: false },
      { id: "__end__", kind: "end" as const, nodeType: "", isJoin: false },
    ];
    const edges = [
      { id: "a", source: "__start__", target: nodes[1].id },
      { id: "b", source: nodes[1].id, target: "__end__" },
    ];
    const spec: Topology = { nodes, edges };
    const run: Topology = { nodes, edges, runStates: true };
    const box = (t: Topology) => initialLayout(t).nodes.get(nodes[1].id);
    expect(box(spec)).toMatchObject({ width: nodeCard(nodes[1].id, false).width, height: nodeCard(nodes[1].id, false).height });
    expect(box(run)).toMatchObject({ width: nodeCard(nodes[1].id, true).width, height: nodeCard(nodes[1].id, true).height });
    expect(layoutKey(spec)).not.toBe(layoutKey(run));
  });
});
