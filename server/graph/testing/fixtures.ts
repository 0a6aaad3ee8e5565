import { z } from "zod";
import { Graph } from "../graph";
import { END, START } from "../names";
import { FunctionNode } from "../nodes/function-node";
import { HumanInputNode } from "../nodes/human-input-node";
import type { DeliveredInput } from "../node";
import type { SchedulerKind } from "../scheduler";
import { defineGraphState } from "../state";

/** Graph shapes shared by the engine's tests and `npm run bench`. Trivial bodies on purpose. */

const pass = (): null => null;
const firstInput = (_ctx: unknown, input: readonly DeliveredInput[]): unknown => input[0].content;

/** START → n0 → n1 → … → END. */
export function linearChain(n: number, scheduler: SchedulerKind = "linear") {
  const g = new Graph({ name: `chain${n}` });
  let prev = START;
  for (let i = 0; i < n; i++) {
    g.addNode(new FunctionNode(`n${i}`, pass)).addEdge(prev, `n${i}`);
    prev = `n${i}`;
  }
  g.addEdge(prev, END);
  return g.compile({ scheduler });
}

/** START → fan → b0..bN-1 → join → END; fan delivers its index to each branch. */
export function fanOut(branches: number, scheduler: SchedulerKind = "parallel") {
  const g = new Graph({ name: `fan${branches}` });
  g.addNode(
    new FunctionNode("fan", (ctx) => {
      for (let i = 0; i < branches; i++) ctx.deliver(i, `b${i}`);
    }),
  ).addEdge(START, "fan");
  for (let i = 0; i < branches; i++) {
    const name = `b${i}`;
    g.addNode(new FunctionNode(name, firstInput)).addEdge("fan", name).addEdge(name, "join");
  }
  g.addNode(new FunctionNode("join", (_c, input) => input.length)).addEdge("join", END);
  return g.compile({ scheduler, maxIterations: branches + 10 });
}

/**
 * START → fan → b0..bN-1 → END, for crash and kill tests: each branch yields to the event loop (odd ones
 * a `timerMs` timer, even ones a macrotask, so kills land inside async node bodies too), then delivers
 * its own name to END.
 */
export function yieldingFanOut(branches: number, { name, timerMs }: { name: string; timerMs: number }) {
  const g = new Graph({ name });
  g.addNode(
    new FunctionNode("fan", (ctx) => {
      for (let i = 0; i < branches; i++) ctx.deliver(i, `b${i}`);
    }),
  ).addEdge(START, "fan");
  for (let i = 0; i < branches; i++) {
    const pause = i % 2 ? () => new Promise((r) => setTimeout(r, timerMs)) : () => new Promise((r) => setImmediate(r));
    g.addNode(new FunctionNode(`b${i}`, async () => (await pause(), `b${i}`))).addEdge("fan", `b${i}`).addEdge(`b${i}`, END);
  }
  return g.compile({ scheduler: "parallel", maxIterations: branches * 4 + 10 });
}

export const CounterState = defineGraphState({ count: z.number().default(0) });

/** a ⇄ b until a has run `iterations` times, then a → END. */
export function twoNodeLoop(iterations: number) {
  const g = new Graph({ name: "loop", state: CounterState });
  g.addNode(
    new FunctionNode<typeof CounterState>("a", (ctx) => {
      ctx.deliver(ctx.state.count, ++ctx.state.count >= iterations ? END : "b");
    }),
  );
  g.addNode(new FunctionNode<typeof CounterState>("b", (_c, input) => input[0].content, { next: "a" }));
  g.addEdge(START, "a").addEdge("a", "b").addEdge("b", "a").addEdge("a", END);
  return g.compile({ maxIterations: iterations * 2 + 10 });
}

/** START → prepare → approve (HumanInputNode) → END. */
export function approvalGraph() {
  const g = new Graph({ name: "approval" });
  g.addNode(new FunctionNode("prepare", () => "draft"));
  g.addNode(new HumanInputNode("approve", { prompt: "Ship it?" }));
  g.addEdge(START, "prepare").addEdge("prepare", "approve").addEdge("approve", END);
  return g.compile();
}
