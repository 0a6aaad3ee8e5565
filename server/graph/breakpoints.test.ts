import { describe, expect, it } from "vitest";
import { GraphDrained } from "./errors";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { GraphAsNode } from "./nodes/graph-as-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { GraphRunControl } from "./run-control";

/** START → a → b → c → END, recording which nodes ran. */
function chain(scheduler: "linear" | "parallel") {
  const ran: string[] = [];
  const step = (name: string) =>
    new FunctionNode(name, async (_ctx, input) => {
      ran.push(name);
      return `${String(input[0]?.content ?? "")}${name}`;
    });
  const g = new Graph().addNode(step("a")).addNode(step("b")).addNode(step("c"));
  g.addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").addEdge("c", END);
  return { g: g.compile({ scheduler }), ran };
}

const drained = (e: unknown) => {
  if (!(e instanceof GraphDrained)) throw e;
  return e;
};

describe.each(["linear", "parallel"] as const)("breakpoints (%s)", (scheduler) => {
  it("the run pauses before a breakpoint's node; Continue lets it start once and the run completes", async () => {
    const { g, ran } = chain(scheduler);
    const control = new GraphRunControl();
    control.setBreakpoints(["b"]);
    const coordinator = createInMemoryCoordinator();
    const ctx = g.createContext({ coordinator, control, input: "" });
    expect(((await g.run(ctx).catch(drained)) as GraphDrained).reason).toBe("pause");
    expect(ran).toEqual(["a"]);
    expect(control.heldAt).toBe("b");
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("paused");

    control.reset();
    control.passOnce("b");
    const result = await g.resume(ctx);
    expect(result.status).toBe("completed");
    expect(ran).toEqual(["a", "b", "c"]);
  });

  it("Step runs just the next node and holds before the one after it", async () => {
    const { g, ran } = chain(scheduler);
    const control = new GraphRunControl();
    control.setBreakpoints(["a"]);
    const coordinator = createInMemoryCoordinator();
    const ctx = g.createContext({ coordinator, control, input: "" });
    await g.run(ctx).catch(drained);
    expect([ran, control.heldAt]).toEqual([[], "a"]);

    control.reset();
    control.passOnce("a");
    control.step();
    await g.resume(ctx).catch(drained);
    expect([ran, control.heldAt]).toEqual([["a"], "b"]);

    control.reset();
    control.step();
    await g.resume(ctx).catch(drained);
    expect([ran, control.heldAt]).toEqual([["a", "b"], "c"]);
  });

  it("a subgraph node is one step: Step runs it whole, and its inner nodes never hold (a namesake of a breakpoint either)", async () => {
    const ran: string[] = [];
    const step = (name: string, label = name) =>
      new FunctionNode(name, async (_ctx, input) => {
        ran.push(label);
        return input[0]?.content ?? null;
      });
    // The inner graph has a node named like the outer breakpoint "c": only the outer one holds.
    const inner = new Graph().addNode(step("x", "sub.x")).addNode(step("c", "sub.c"));
    inner.addEdge(START, "x").addEdge("x", "c").addEdge("c", END);
    const g = new Graph().addNode(step("a")).addNode(new GraphAsNode("sub", inner.compile({ scheduler }))).addNode(step("c"));
    g.addEdge(START, "a").addEdge("a", "sub").addEdge("sub", "c").addEdge("c", END);
    const graph = g.compile({ scheduler });
    const control = new GraphRunControl();
    control.setBreakpoints(["sub", "c"]);
    const coordinator = createInMemoryCoordinator();
    const ctx = graph.createContext({ coordinator, control, input: "" });
    await graph.run(ctx).catch(drained);
    expect([ran, control.heldAt]).toEqual([["a"], "sub"]);

    control.reset();
    control.passOnce("sub");
    control.step();
    await graph.resume(ctx).catch(drained);
    expect([ran, control.heldAt]).toEqual([["a", "sub.x", "sub.c"], "c"]);

    control.reset();
    control.passOnce("c");
    control.step(); // c, then END (never held)
    expect((await graph.resume(ctx)).status).toBe("completed");
    expect(ran).toEqual(["a", "sub.x", "sub.c", "c"]);
  });
});
