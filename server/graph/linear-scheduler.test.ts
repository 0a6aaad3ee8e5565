import { describe, expect, it } from "vitest";
import { GraphRecursionError } from "./errors";
import { RecordingObserver } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { fanOut, linearChain, twoNodeLoop } from "./testing/fixtures";

/** A node that delivers to itself for ever: only `maxIterations` ends the run. */
function spinning(maxIterations: number) {
  return new Graph()
    .addNode(new FunctionNode("spin", (ctx) => void ctx.deliver(null, "spin")))
    .addEdge(START, "spin")
    .addEdge("spin", "spin")
    .addEdge("spin", END)
    .compile({ maxIterations });
}

describe("LinearScheduler", () => {
  it("is the default and runs one node at a time", async () => {
    let inFlight = 0;
    let peak = 0;
    const g = new Graph();
    g.addNode(new FunctionNode("fan", (ctx) => ["x", "y"].forEach((t) => ctx.deliver(t, t)))).addEdge(START, "fan");
    for (const t of ["x", "y"]) {
      g.addNode(
        new FunctionNode(t, async () => {
          peak = Math.max(peak, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return t;
        }),
      ).addEdge("fan", t);
    }
    const compiled = g.compile();
    expect(compiled.schedulerKind).toBe("linear");
    const { result } = await compiled.invoke(null);
    expect(peak).toBe(1);
    expect(result.result.map((r) => r.content)).toEqual(["x", "y"]);
  });

  it("the first recorded dispatch target runs next", async () => {
    const obs = new RecordingObserver();
    const g = new Graph()
      .addNode(new FunctionNode("a", (ctx) => (ctx.deliver(1, "c"), ctx.deliver(2, "b"), undefined)))
      .addNode(new FunctionNode("b", () => "b"))
      .addNode(new FunctionNode("c", () => "c"))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("a", "c")
      .compile();
    await g.invoke(null, { observer: obs });
    expect(obs.ofType("node_started").map((e) => e.node)).toEqual([START, "a", "c", "b", END]);
  });

  it("defers a join while another queued node could still reach it", async () => {
    const { result } = await fanOut(5, "linear").invoke(null);
    expect(result.result).toEqual([{ content: 5, source: "join" }]);
  });

  it("runs a chain and a loop", async () => {
    expect((await linearChain(10).invoke(null)).result.iterations).toBe(12);
    const { result, ctx } = await twoNodeLoop(5).invoke(null);
    expect(ctx.state.count).toBe(5);
    expect(result.result).toEqual([{ content: 4, source: "a" }]);
  });

  it("maxIterations raises GraphRecursionError", async () => {
    const g = spinning(50);
    const err = await g.invoke(null).catch((e) => e);
    expect(err).toBeInstanceOf(GraphRecursionError);
    expect(err.maxIterations).toBe(50);
  });

  it("a run that fails outside any node says why in its failed status event", async () => {
    const observer = new RecordingObserver();
    await spinning(50).invoke(null, { coordinator: createInMemoryCoordinator(), observer }).catch(() => {});
    expect(observer.ofType("instance_status").at(-1)).toMatchObject({ to: "failed", error: "graph exceeded maxIterations (50 node executions)" });
  });
});
