import "server-only";
import ELK from "elkjs/lib/elk.bundled.js";
import { layoutToJson, layoutWith, type LayoutJson } from "@/components/canvas/elk-layout";
import { layoutKey, type Topology } from "@/components/canvas/topology";

/**
 * ELK's layout of an instance's topology, computed while the page renders on the server, so the page
 * arrives with the graph where it stays: the browser then neither loads ELK into a worker (a second of
 * a core, competing with the page's own start) nor re-renders the canvas when ELK's answer replaces
 * the quick stand-in. Cached per layout key: the instances of one spec share it, and a spec revision
 * never changes. A layout that takes longer than `waitMs` (ELK loading on the first page after a
 * start) is left to the browser, as before; it lands in the cache for the next page.
 */
const MAX_CACHED = 256;
/**
 * ELK runs on the server's event loop (which also streams live events): a large graph's layout, which
 * takes a core for hundreds of milliseconds, stays in the browser's worker.
 */
const MAX_NODES = 80;
const cache = new Map<string, Promise<LayoutJson | null>>();
let elk: InstanceType<typeof ELK> | undefined;

export async function serverLayout(topology: Topology, waitMs = 100): Promise<LayoutJson | null> {
  if (topology.nodes.length > MAX_NODES) return null;
  const key = layoutKey(topology);
  let pending = cache.get(key);
  if (!pending) {
    elk ??= new ELK();
    pending = layoutWith(elk, topology).then(
      (layout) => layoutToJson(key, layout),
      () => null,
    );
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, pending);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
  try {
    return await Promise.race([pending, late]);
  } finally {
    clearTimeout(timer);
  }
}
