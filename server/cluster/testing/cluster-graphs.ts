import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import type { GraphCatalog } from "../cluster-worker";

/** START → fan → b0..bN-1 → END; each branch yields to the event loop, then delivers its own name. */
export function fanOutGraph(branches: number) {
  const g = new Graph({ name: `cluster-fan${branches}` });
  g.addNode(
    new FunctionNode("fan", (ctx) => {
      for (let i = 0; i < branches; i++) ctx.deliver(i, `b${i}`);
    }),
  ).addEdge(START, "fan");
  for (let i = 0; i < branches; i++) {
    const pause = i % 2 ? () => new Promise((r) => setTimeout(r, 2)) : () => new Promise((r) => setImmediate(r));
    g.addNode(new FunctionNode(`b${i}`, async () => (await pause(), `b${i}`))).addEdge("fan", `b${i}`).addEdge(`b${i}`, END);
  }
  return g.compile({ scheduler: "parallel", maxIterations: branches * 4 + 10 });
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
