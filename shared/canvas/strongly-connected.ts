/**
 * Strongly connected components of a directed graph (Tarjan's algorithm, iterative so that a 20,000-node
 * spec does not overflow the stack): node id → component number. Two nodes share a component exactly
 * when each reaches the other, so an edge inside a component closes a loop.
 */
export function stronglyConnected(ids: readonly string[], edges: readonly { source: string; target: string }[]): Map<string, number> {
  const succ = new Map<string, string[]>();
  for (const id of ids) succ.set(id, []);
  for (const e of edges) {
    if (!succ.has(e.source)) succ.set(e.source, []);
    if (!succ.has(e.target)) succ.set(e.target, []);
    succ.get(e.source)!.push(e.target);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const component = new Map<string, number>();
  let next = 0;
  let components = 0;
  for (const root of succ.keys()) {
    if (index.has(root)) continue;
    // Each frame: a node and the position of the next successor to visit.
    const frames: { id: string; i: number }[] = [{ id: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const f = frames[frames.length - 1];
      const out = succ.get(f.id)!;
      if (f.i < out.length) {
        const w = out[f.i++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          frames.push({ id: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(f.id, Math.min(low.get(f.id)!, index.get(w)!));
        }
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1].id;
        low.set(parent, Math.min(low.get(parent)!, low.get(f.id)!));
      }
      if (low.get(f.id) === index.get(f.id)) {
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          component.set(w, components);
          if (w === f.id) break;
        }
        components++;
      }
    }
  }
  return component;
}
