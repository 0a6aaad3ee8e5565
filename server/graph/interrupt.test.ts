import { describe, expect, it } from "vitest";
import { GraphBubbleUp, GraphDrained, GraphInterrupt, StateValidationError, isGraphInterrupt } from "./errors";
import { RecordingObserver, type EngineEvent } from "./events";
import { GraphRunControl } from "./run-control";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { HumanInputNode, type HumanInputRequest } from "./nodes/human-input-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import type { SchedulerKind } from "./scheduler";

/** START → before → gate (interrupts until resumed) → after → END, counting every body run. */
function counted(scheduler: SchedulerKind) {
  const runs = { before: 0, gate: 0, after: 0 };
  const g = new Graph()
    .addNode(new FunctionNode("before", () => (runs.before++, "prepared")))
    .addNode(
      new FunctionNode("gate", (ctx, input) => {
        runs.gate++;
        const resume = input.find((i) => (i.content as { __resume__?: boolean }).__resume__);
        if (!resume) ctx.interrupt({ question: "approve?" });
        return (resume!.content as { value: unknown }).value;
      }),
    )
    .addNode(new FunctionNode("after", (_c, input) => (runs.after++, `after:${input[0].content}`)))
    .addEdge(START, "before")
    .addEdge("before", "gate")
    .addEdge("gate", "after")
    .addEdge("after", END)
    .compile({ scheduler });
  return { g, runs };
}

describe.each(["linear", "parallel"] as const)("interrupt and resume (%s)", (scheduler) => {
  it("ctx.interrupt sets resumeTarget and raises GraphInterrupt with the payload", async () => {
    const { g } = counted(scheduler);
    const coordinator = createInMemoryCoordinator();
    const obs = new RecordingObserver();
    const ctx = g.createContext({ coordinator, observer: obs });
    const err = await g.run(ctx).catch((e) => e);
    expect(err).toBeInstanceOf(GraphInterrupt);
    expect(err).toBeInstanceOf(GraphBubbleUp);
    expect(err.value).toEqual({ question: "approve?" });
    expect(ctx.state.resumeTarget).toBe("gate");
    const gate = (await coordinator.nodes.listByInstance(ctx.instanceId)).find((i) => i.nodeName === "gate");
    expect(gate?.status).toBe("CANCELLED");
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("paused");
    expect(obs.ofType("interrupt_raised")).toMatchObject([{ node: "gate", value: { question: "approve?" } }]);
  });

  it("resume re-enters at the entry node and routes straight to the target: nothing before it runs again", async () => {
    const { g, runs } = counted(scheduler);
    const coordinator = createInMemoryCoordinator();
    const obs = new RecordingObserver();
    const ctx = g.createContext({ coordinator, observer: obs });
    await g.run(ctx).catch((e) => {
      if (!isGraphInterrupt(e)) throw e;
    });
    expect(runs).toEqual({ before: 1, gate: 1, after: 0 });
    const result = await g.resume(ctx, "yes");
    expect(runs).toEqual({ before: 1, gate: 2, after: 1 });
    expect(result.result.map((p) => p.content)).toEqual(["after:yes"]);
    expect(ctx.state.resumeTarget).toBeNull();
    const startedAfterResume = obs.ofType("node_started").slice(3).map((e) => e.node);
    expect(startedAfterResume).toEqual([START, "gate", "after", END]);
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("completed");
  });

  it("a pause asked as a resumed run starts is honoured after the entry node delivered the value: a later resume goes on with it", async () => {
    const { g, runs } = counted(scheduler);
    const coordinator = createInMemoryCoordinator();
    const control = new GraphRunControl();
    let pauseAtStart = false;
    const observer = { onEvent: (e: EngineEvent) => void (e.type === "run_started" && pauseAtStart && control.requestPause()) };
    const ctx = g.createContext({ coordinator, control, observer });
    await g.run(ctx).catch((e) => {
      if (!isGraphInterrupt(e)) throw e;
    });
    pauseAtStart = true;
    await expect(g.resume(ctx, "kept")).rejects.toBeInstanceOf(GraphDrained);
    expect(runs).toEqual({ before: 1, gate: 1, after: 0 }); // drained before the gate, after START
    expect(ctx.state.resumeTarget).toBeNull(); // the value is in the ledger, not in the target
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("paused");
    pauseAtStart = false;
    const result = await g.resume(ctx);
    expect(result.result.map((p) => p.content)).toEqual(["after:kept"]);
  });
});

describe("HumanInputNode", () => {
  it("suspends with its prompt, then delivers the human's answer on resume", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("draft", () => "v1 of the doc"))
      .addNode(new HumanInputNode("review", { prompt: "Approve the draft?" }))
      .addNode(new FunctionNode("publish", (_c, input) => `published with answer ${JSON.stringify(input[0].content)}`))
      .addEdge(START, "draft")
      .addEdge("draft", "review")
      .addEdge("review", "publish")
      .addEdge("publish", END)
      .compile();
    const ctx = g.createContext({ coordinator: createInMemoryCoordinator() });
    const err = await g.run(ctx).catch((e) => e);
    const request = err.value as HumanInputRequest;
    expect(request).toEqual({ kind: "human_input", node: "review", prompt: "Approve the draft?", context: ["v1 of the doc"] });
    const done = await g.resume(ctx, { approved: true, by: "ada" });
    expect(done.result[0].content).toBe('published with answer {"approved":true,"by":"ada"}');
  });

  it("can be resumed across a fresh context built from persisted state", async () => {
    const { approvalGraph } = await import("./testing/fixtures");
    const g = approvalGraph();
    const coordinator = createInMemoryCoordinator();
    const first = g.createContext({ coordinator });
    await g.run(first).catch(() => undefined);
    const saved = (await coordinator.instances.loadState(first.instanceId)) as { resumeTarget: string };
    expect(saved.resumeTarget).toBe("approve");
    const second = g.createContext({ coordinator, instanceId: first.instanceId, state: saved });
    const result = await g.resume(second, "ok");
    expect(result.result.map((p) => p.content)).toEqual(["ok"]);
  });

  it("a stored state the schema refuses fails the resumed run (FAILED, naming the field); it is not left paused", async () => {
    const { approvalGraph } = await import("./testing/fixtures");
    const g = approvalGraph();
    const coordinator = createInMemoryCoordinator();
    const first = g.createContext({ coordinator });
    await g.run(first).catch(() => undefined);
    expect((await coordinator.instances.load(first.instanceId))?.status).toBe("paused");
    const saved = (await coordinator.instances.loadState(first.instanceId)) as Record<string, unknown>;
    const bad = { ...saved, result: "not a list" };
    const second = g.createContext({ coordinator, instanceId: first.instanceId, state: bad as never, storedState: true });
    const failure = await g.resume(second, "ok").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StateValidationError);
    expect((failure as Error).message).toMatch(/^the stored state does not fit the graph's state schema: result: /);
    expect((await coordinator.instances.load(first.instanceId))?.status).toBe("failed");
    // Without storedState a refused state is the caller's mistake: createContext throws, as before.
    expect(() => g.createContext({ coordinator, state: bad as never })).toThrow();
  });
});

describe("the engine never swallows control signals", () => {
  it("an interrupt propagates even through a node that catches and rethrows only errors it knows", async () => {
    const g = new Graph()
      .addNode(new HumanInputNode("ask", { prompt: "?" }))
      .addEdge(START, "ask")
      .compile();
    await expect(g.invoke(null)).rejects.toBeInstanceOf(GraphInterrupt);
  });
});
