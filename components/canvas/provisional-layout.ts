import { type GraphLayout, type NodeBox, type Point, sizeOf } from "@/shared/canvas/elk-layout";
import type { Topology } from "@/shared/canvas/topology";

/**
 * An instant stand-in while ELK computes the real layout: nodes keep their boxes, a new node sits to
 * the right of its first placed predecessor (or below everything), edges between unmoved nodes keep
 * their routes, new edges have none (the canvas draws them as curves). Replaced within a few hundred
 * milliseconds; its job is to make a keystroke show up in the next frame.
 */
export function provisionalLayout(previous: GraphLayout, topology: Topology): GraphLayout {
  const nodes = new Map<string, NodeBox>();
  let bottom = 0;
  for (const box of previous.nodes.values()) bottom = Math.max(bottom, box.y + box.height);
  const predecessor = new Map<string, string>();
  for (const e of topology.edges) if (!predecessor.has(e.target)) predecessor.set(e.target, e.source);
  let stacked = 0;
  for (const n of topology.nodes) {
    const old = previous.nodes.get(n.id);
    if (old) {
      nodes.set(n.id, old);
      continue;
    }
    const size = sizeOf(n, topology);
    const pred = predecessor.get(n.id);
    const anchor = pred ? (nodes.get(pred) ?? previous.nodes.get(pred)) : undefined;
    const box = anchor
      ? { x: anchor.x + anchor.width + 56, y: anchor.y + 28 * (stacked++ % 3), ...size }
      : { x: 24 + 200 * stacked++, y: bottom + 56, ...size };
    nodes.set(n.id, box);
  }
  const edges = new Map<string, readonly Point[]>();
  for (const e of topology.edges) {
    const route = previous.edges.get(e.id);
    if (route && previous.nodes.get(e.source) === nodes.get(e.source) && previous.nodes.get(e.target) === nodes.get(e.target)) edges.set(e.id, route);
  }
  return { nodes, edges, width: previous.width, height: Math.max(previous.height, bottom + 120), vertical: previous.vertical };
}
