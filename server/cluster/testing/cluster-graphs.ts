import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { yieldingFanOut } from "@/server/graph/testing/fixtures";
import type { GraphCatalog } from "../cluster-worker";

/** The cluster tests' fan-out (yieldingFanOut). */
export function fanOutGraph(branches: number) {
  return yieldingFanOut(branches, { name: `cluster-fan${branches}`, timerMs: 2 });
}

/** START → n0 → … → n(N-1) → END; each node passes its input on after `delayMs` (0: a macrotask). */
export function chainGraph(length: number, delayMs = 0) {
  const g = new Graph({ name: `cluster-chain${length}-${delayMs}` });
  let previous: string = START;
  for (let i = 0; i < length; i++) {
    const wait = delayMs > 0 ? () => new Promise((r) => setTimeout(r, delayMs)) : () => new Promise((r) => setImmediate(r));
    g.addNode(new FunctionNode(`n${i}`, async (_ctx, input) => (await wait(), input[0]?.content ?? null))).addEdge(previous, `n${i}`);
    previous = `n${i}`;
  }
  g.addEdge(previous, END);
  return g.compile({ maxIterations: length * 4 + 10 });
}

/** START → before → gate → after → END; gate interrupts until resumed with a value, after delivers `after:<value>`. */
export function gateGraph() {
  const g = new Graph({ name: "cluster-gate" });
  g.addNode(new FunctionNode("before", () => "prepared"))
    .addNode(
      new FunctionNode("gate", (ctx, input) => {
        const resume = input.find((i) => (i.content as { __resume__?: boolean } | null)?.__resume__);
        if (!resume) ctx.interrupt({ question: "approve?" });
        return (resume!.content as { value: unknown }).value;
      }),
    )
    .addNode(new FunctionNode("after", (_c, input) => `after:${String(input[0].content)}`))
    .addEdge(START, "before")
    .addEdge("before", "gate")
    .addEdge("gate", "after")
    .addEdge("after", END);
  return g.compile();
}

/** The graphs the cluster tests and the bench run, by name. */
export const testGraphCatalog: GraphCatalog = ({ graphName: name }) => {
  if (name === "cluster-gate") return gateGraph();
  const fan = /^cluster-fan(\d+)$/.exec(name);
  if (fan) return fanOutGraph(Number(fan[1]));
  const chain = /^cluster-chain(\d+)-(\d+)$/.exec(name);
  if (chain) return chainGraph(Number(chain[1]), Number(chain[2]));
  throw new Error(`no test graph ${name}`);
};
