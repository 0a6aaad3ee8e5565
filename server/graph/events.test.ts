import { describe, expect, it } from "vitest";
import { RecordingObserver, type EngineEvent } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";

/** Exhaustive: adding an event type without handling it here breaks the build. */
function describeEvent(e: EngineEvent): string {
  switch (e.type) {
    case "instance_status":
      return `status ${e.from ?? "∅"}→${e.to}`;
    case "run_started":
      return `run ${e.mode}`;
    case "run_finished":
      return `finished ${e.reachedEnd}`;
    case "node_started":
    case "node_completed":
    case "node_failed":
    case "node_cancelled":
      return `${e.type} ${e.nodeInstance}`;
    case "deliver_staged":
    case "deliver_promoted":
    case "deliver_consumed":
      return `${e.type} ${e.source}→${e.target}`;
    case "interrupt_raised":
      return `interrupt ${e.node}`;
    case "drained":
      return `drained ${e.reason}`;
    case "node_activity":
      return `activity ${e.node} ${e.activity.kind}`;
  }
}

describe("engine events", () => {
  it("announces a run in order: status, nodes, and every deliver with source, target and payload", async () => {
    const obs = new RecordingObserver();
    const g = new Graph().addNode(new FunctionNode("a", () => "hello")).addEdge(START, "a").addEdge("a", END).compile();
    await g.invoke("in", { observer: obs, coordinator: createInMemoryCoordinator() });
    expect(obs.events.map(describeEvent)).toEqual([
      "status ∅→running",
      "run fresh",
      "node_started __start__#0",
      "deliver_staged __start__→a",
      "deliver_promoted __start__→a",
      "node_completed __start__#0",
      "node_started a#0",
      "deliver_consumed __start__→a",
      "deliver_staged a→__end__",
      "deliver_promoted a→__end__",
      "node_completed a#0",
      "node_started __end__#0",
      "deliver_consumed a→__end__",
      "node_completed __end__#0",
      "status running→completed",
      "finished true",
    ]);
    const promoted = obs.ofType("deliver_promoted")[1];
    expect(promoted.payload).toBe("hello");
    expect(obs.ofType("node_completed")[1].delivered).toBe(1);
  });

  it("emits nothing and needs no observer when nobody listens", async () => {
    const g = new Graph().addNode(new FunctionNode("a", () => 1)).addEdge(START, "a").compile();
    const { result } = await g.invoke(null);
    expect(result.reachedEnd).toBe(true);
  });
});
