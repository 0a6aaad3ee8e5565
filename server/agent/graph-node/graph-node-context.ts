import type { DeliveredInput } from "../../graph/node";
import { END, START } from "../../graph/names";
import { isGraphPayload } from "../../graph/payload";

/** Where an agent node sits: the graph's nodes and edges as the spec declared them, and each node's role. */
export interface NodePlace {
  node: string;
  /** Every node of the graph (START and END included), in declaration order. */
  nodes: readonly string[];
  upstream: readonly string[];
  downstream: readonly string[];
  edges: readonly (readonly [string, string])[];
  /** A node's role (its spec description, else its agent's), or undefined. */
  roleOf: (node: string) => string | undefined;
}

/** Which deliver content template a node is taught, from its place (seed 003: "chosen by topology"). */
export type DeliverPattern = "producer" | "relay";

/**
 * Producer (Task / Result / Status) for a node that makes new work; Relay (Source / Selection / Summary /
 * Omitted) for one whose job is to filter and pass on several upstreams' work to a single next node.
 */
export function deliverPatternOf(place: NodePlace): DeliverPattern {
  const upstream = place.upstream.filter((n) => n !== START);
  return upstream.length > 1 && place.downstream.length === 1 && !place.downstream.includes(END) ? "relay" : "producer";
}

const PATTERNS: Record<DeliverPattern, string> = {
  producer: [
    "Deliver content pattern (Producer): write what you made, not a copy of your input.",
    "  Task: what you were asked to do, in a line.",
    "  Result: the work itself.",
    "  Status: done, or what is still open.",
  ].join("\n"),
  relay: [
    "Deliver content pattern (Relay): you filter and summarise what your upstreams sent; forwarding it verbatim defeats your role.",
    "  Source: which upstream nodes the content came from.",
    "  Selection: what you kept, and why.",
    "  Summary: the kept content, condensed.",
    "  Omitted: what you left out.",
  ].join("\n"),
};

const FINAL_REPLY = "Final Reply pattern (for __end__): write for the user directly; never mention nodes, graphs or handoffs.";

/** The `## Graph Node Context` system section: guidance, patterns, Topology (you are here), Your Role. */
export function graphNodeContext(place: NodePlace, role: string, options: { knowledge: boolean }): string {
  const label = (n: string) => {
    const r = place.roleOf(n);
    return r ? `${n} (${oneLine(r)})` : n;
  };
  const lines = [
    "## Graph Node Context",
    `You are node "${place.node}" of a workflow graph. Regular text output reaches no one: only the deliver tool routes your work onward, to the nodes it names.`,
    PATTERNS[deliverPatternOf(place)],
    ...(place.downstream.includes(END) ? [FINAL_REPLY] : []),
    ...(options.knowledge
      ? ["A knowledge base shared by every node of this run (the knowledge_base tool) holds findings, decisions, open questions and context: read what earlier nodes found, record what later ones need."]
      : []),
    "### Topology",
    `Nodes: ${capped(place.nodes)}`,
    `Edges: ${capped(place.edges.map(([a, b]) => `${a} → ${b}`))}`,
    `You are here: ${place.node}`,
    `Upstream: ${place.upstream.map(label).join("; ") || "(none)"}`,
    `Downstream: ${place.downstream.map(label).join("; ") || "(none)"}`,
    "### Your Role",
    role,
  ];
  return lines.join("\n");
}

/**
 * The per-invocation input envelope (a system reminder): one `[Input from graph node 'X']` block per
 * upstream delivery with X's role, then `[Upstream Status]`: who delivered, and that the others will not
 * (this node starts once every upstream that could still deliver has), so it never waits for them.
 */
export function nodeInputEnvelope(place: NodePlace, input: readonly DeliveredInput[]): string {
  const blocks = input.map((row) => {
    const role = place.roleOf(row.sourceNode);
    return `[Input from graph node '${row.sourceNode}'${role ? ` (role: ${oneLine(role)})` : ""}]\n${render(row.content)}`;
  });
  const delivered = new Set(input.map((r) => r.sourceNode));
  const quiet = place.upstream.filter((n) => !delivered.has(n));
  const status = [
    "[Upstream Status]",
    `Delivered: ${[...delivered].join(", ") || "(nothing)"}`,
    ...(quiet.length ? [`Not activated in this run: ${quiet.join(", ")}`] : []),
    "No further input is expected for this invocation: proceed with what you have.",
  ];
  const body = blocks.length ? blocks.join("\n\n") : "[No input was delivered to this node]";
  return `<system-reminder>\n${body}\n\n${status.join("\n")}\n</system-reminder>`;
}

/** The deliver tool's description: who you are, every target with its role, and what `__end__` does. */
export function deliverDescription(place: NodePlace): string {
  const targets = place.downstream.map((t) => {
    if (t === END) return `- ${END}: the graph's final reply. It collects every delivery to it, in delivery order, and concatenates them into the reply the user reads (Final Reply pattern: write for the user directly; never mention nodes or handoffs).`;
    const role = place.roleOf(t);
    return `- ${t}${role ? `: ${oneLine(role)}` : ""}`;
  });
  return [`You are node: ${place.node}. Regular text output reaches no one: call deliver to hand your result on.`, "Targets:", ...targets].join("\n");
}

/** A wide graph's list, cut: the model needs its neighbours (listed in full below), not 1,000 names. */
const TOPOLOGY_LIST_LIMIT = 60;

function capped(items: readonly string[]): string {
  if (items.length <= TOPOLOGY_LIST_LIMIT) return items.join(", ");
  return `${items.slice(0, TOPOLOGY_LIST_LIMIT).join(", ")}, … and more`;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function render(content: unknown): string {
  const value = isGraphPayload(content) ? content.content : content;
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}
