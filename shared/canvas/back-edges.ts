import { edgeId, type Topology } from "@/shared/canvas/topology";

/**
 * The edges that close a loop: those reaching a node still on the depth-first walk (from each node in
 * declaration order, START first, as ELK's DEPTH_FIRST cycle breaking walks them). The canvas draws
 * them dashed, and the quick layout leaves them out of its layering. Read from the graph, not from the
 * drawing: in a wrapped layout the edge from one row's end to the next row's start runs leftwards too.
 */
export function backEdges(topology: Pick<Topology, "nodes" | "edges">): Set<string> {
  const out = new Map<string, string[]>();
  for (const n of topology.nodes) out.set(n.id, []);
  for (const e of topology.edges) out.get(e.source)?.push(e.target);
  const back = new Set<string>();
  const state = new Map<string, 1 | 2>();
  // An explicit stack (a 20,000-node chain is deeper than the call stack): each entry a node and how
  // many of its successors it has walked.
  for (const root of topology.nodes) {
    if (state.has(root.id)) continue;
    state.set(root.id, 1);
    const stack: [string, number][] = [[root.id, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const next = out.get(top[0])?.[top[1]++];
      if (next === undefined) {
        state.set(top[0], 2);
        stack.pop();
      } else if (state.get(next) === 1) back.add(edgeId(top[0], next));
      else if (!state.has(next)) {
        state.set(next, 1);
        stack.push([next, 0]);
      }
    }
  }
  return back;
}
