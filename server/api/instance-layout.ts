import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { ElkNode } from "elkjs/lib/elk-api.js";
import { layoutToJson, layoutWith, type LayoutJson } from "@/shared/canvas/elk-layout";
import { layoutKey, type Topology } from "@/shared/canvas/topology";

/**
 * ELK's layout of an instance's topology, computed while the page renders on the server, so the page
 * arrives with the graph where it stays: the browser then neither loads ELK into a worker (a second of
 * a core, competing with the page's own start) nor re-renders the canvas when ELK's answer replaces
 * the quick stand-in. Cached per layout key: the instances of one spec share it, and a spec revision
 * never changes. A layout that takes longer than `waitMs` (ELK still loading, the first page after a
 * start) is left to the browser, as before; it lands in the cache for the next page.
 *
 * ELK runs in a worker thread: loading it takes the best part of a second and a layout of 40 nodes
 * 150–250 ms here, which on the server's event loop would hold up every live stream and run.
 */
const MAX_CACHED = 256;
/** Larger graphs stay in the browser's worker: the server's worker is one thread for every page. */
const MAX_NODES = 120;
const cache = new Map<string, Promise<LayoutJson | null>>();

// CommonJS run by the worker thread: ELK's bundled build from the app's node_modules.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const ELK = require(workerData.elkPath);
const elk = new ELK();
parentPort.on("message", ({ id, graph }) => {
  elk.layout(graph).then((out) => parentPort.postMessage({ id, out }), (e) => parentPort.postMessage({ id, error: String(e) }));
});
`;

let worker: { layout(graph: ElkNode): Promise<ElkNode> } | null = null;

function layoutWorker(): { layout(graph: ElkNode): Promise<ElkNode> } {
  if (worker) return worker;
  // Resolved at run time from the app's root, like the database's checkpoint worker: the bundler would
  // answer require.resolve with a module id.
  const elkPath = path.join(/*turbopackIgnore: true*/ process.cwd(), "node_modules", "elkjs", "lib", "elk.bundled.js");
  const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { elkPath } });
  thread.unref();
  const waiting = new Map<number, { resolve(out: ElkNode): void; reject(e: Error): void }>();
  let next = 0;
  thread.on("message", (m: { id: number; out?: ElkNode; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.out) w?.resolve(m.out);
    else w?.reject(new Error(m.error ?? "layout failed"));
  });
  const fail = (e: unknown) => {
    for (const w of waiting.values()) w.reject(e instanceof Error ? e : new Error(String(e)));
    waiting.clear();
    worker = null;
    cache.clear();
  };
  thread.on("error", fail);
  thread.on("exit", () => fail(new Error("layout worker exited")));
  worker = {
    layout: (graph) =>
      new Promise<ElkNode>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        thread.postMessage({ id, graph });
      }),
  };
  return worker;
}

/**
 * Starts the worker (loading ELK) ahead of the first instance page: the app calls it when its API
 * first loads, so the worker is ready long before anyone opens an instance.
 */
export function warmInstanceLayout(): void {
  layoutWorker();
}

/**
 * Starts laying out a topology (a new instance's, when it is created), so its page, requested right
 * after, finds the layout done or nearly so.
 */
export function prepareInstanceLayout(topology: Topology): void {
  void serverLayout(topology, 0);
}

export async function serverLayout(topology: Topology, waitMs = 100): Promise<LayoutJson | null> {
  if (topology.nodes.length > MAX_NODES) return null;
  const key = layoutKey(topology);
  let pending = cache.get(key);
  if (!pending) {
    pending = layoutWith(layoutWorker(), topology).then(
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
