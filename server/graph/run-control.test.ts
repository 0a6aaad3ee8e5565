import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { GraphDrained, InstanceStateError } from "./errors";
import { RecordingObserver } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { GraphRunControl } from "./run-control";
import type { SchedulerKind } from "./scheduler";

/** START → fan → w0..w3 (each sleeps) → join → END, recording starts. */
function workers(scheduler: SchedulerKind, control: GraphRunControl, pauseAfterFirst: boolean) {
  const started: string[] = [];
  const g = new Graph();
  g.addNode(new FunctionNode("fan", (ctx) => [0, 1, 2, 3].forEach((i) => ctx.deliver(i, `w${i}`)))).addEdge(START, "fan");
  for (let i = 0; i < 4; i++) {
    g.addNode(
      new FunctionNode(`w${i}`, async () => {
        started.push(`w${i}`);
        if (pauseAfterFirst && started.length === 1) control.requestPause();
        await sleep(5);
        return i * 10;
      }),
    )
      .addEdge("fan", `w${i}`)
      .addEdge(`w${i}`, "join");
  }
  g.addNode(new FunctionNode("join", (_c, input) => input.map((x) => x.content as number).sort((a, b) => a - b))).addEdge("join", END);
  return { g: g.compile({ scheduler }), started };
}

describe.each(["linear", "parallel"] as const)("GraphRunControl (%s)", (scheduler) => {
  it("pause drains at a safe point: in-flight nodes finish, no new node starts, the instance is PAUSED", async () => {
    const control = new GraphRunControl();
    const coordinator = createInMemoryCoordinator();
    const obs = new RecordingObserver();
    const { g, started } = workers(scheduler, control, true);
    const ctx = g.createContext({ coordinator, control, observer: obs });
    const err = await g.run(ctx).catch((e) => e);
    expect(err).toBeInstanceOf(GraphDrained);
    expect(err.reason).toBe("pause");
    const countAtPause = started.length;
    if (scheduler === "linear") expect(countAtPause).toBe(1);
    const running = await coordinator.nodes.listRunning(ctx.instanceId);
    expect(running).toEqual([]);
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("paused");
    expect(obs.ofType("drained")).toHaveLength(1);
    await sleep(20);
    expect(started.length).toBe(countAtPause);
  });

  it("pause then resume gives the same result as an uninterrupted run", async () => {
    const plain = workers(scheduler, new GraphRunControl(), false);
    const expected = (await plain.g.invoke(null)).result.result;

    const control = new GraphRunControl();
    const coordinator = createInMemoryCoordinator();
    const { g, started } = workers(scheduler, control, true);
    const ctx = g.createContext({ coordinator, control });
    await g.run(ctx).catch((e) => {
      if (!(e instanceof GraphDrained)) throw e;
    });
    const result = await g.resume(ctx);
    expect(result.result).toEqual(expected);
    expect(new Set(started).size).toBe(4);
    expect(started).toHaveLength(4);
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("completed");
  });

  it("stop is terminal: the instance is STOPPED and cannot be resumed", async () => {
    const control = new GraphRunControl();
    const coordinator = createInMemoryCoordinator();
    const { g } = workers(scheduler, control, false);
    control.requestStop();
    const ctx = g.createContext({ coordinator, control });
    const err = await g.run(ctx).catch((e) => e);
    expect(err).toBeInstanceOf(GraphDrained);
    expect(err.reason).toBe("stop");
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("stopped");
    await expect(g.resume(ctx)).rejects.toBeInstanceOf(InstanceStateError);
  });
});

describe("GraphRunControl requests", () => {
  it("stop outranks pause, and listeners hear each request", () => {
    const control = new GraphRunControl();
    const heard: string[] = [];
    control.onRequest((r) => heard.push(r));
    control.requestPause();
    control.requestStop();
    control.requestPause();
    expect(control.request).toBe("stop");
    expect(heard).toEqual(["pause", "stop"]);
    control.reset();
    expect(control.request).toBeNull();
  });
});
