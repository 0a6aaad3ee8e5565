import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { GraphDrained } from "./errors";
import { RecordingObserver } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import type { NodePolicy } from "./node-policy";
import { retryDelay } from "./node-policy";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { GraphRunControl } from "./run-control";
import type { SchedulerKind } from "./scheduler";

const retry = (maxAttempts: number, extra: Partial<NonNullable<NodePolicy["retry"]>> = {}): NodePolicy => ({
  retry: { maxAttempts, initialIntervalMs: 5, backoffFactor: 2, maxIntervalMs: 1_000, ...extra },
});

/** START → flaky → after → END; `flaky` fails its first `failures` executions (async, as I/O would). */
function flakyGraph(scheduler: SchedulerKind, failures: number, policy: NodePolicy, body?: (attempt: number) => Promise<void>) {
  let calls = 0;
  const g = new Graph()
    .addNode(
      new FunctionNode(
        "flaky",
        async (_ctx, input) => {
          calls++;
          await (body ? body(calls) : sleep(1));
          if (calls <= failures) throw new Error(`upstream unavailable (call ${calls})`);
          return `ok after ${calls}, ${input.length} input`;
        },
        { policy },
      ),
    )
    .addNode(new FunctionNode("after", (_ctx, input) => `${String(input[0].content)}!`))
    .addEdge(START, "flaky")
    .addEdge("flaky", "after")
    .addEdge("after", END)
    .compile({ scheduler });
  return { g, calls: () => calls };
}

describe("retryDelay", () => {
  it("backs off by the factor up to the maximum, and stops after the last attempt", () => {
    const policy = { maxAttempts: 5, initialIntervalMs: 100, backoffFactor: 3, maxIntervalMs: 500 };
    expect([1, 2, 3, 4].map((a) => retryDelay(policy, a, new Error("x")))).toEqual([100, 300, 500, 500]);
    expect(retryDelay(policy, 5, new Error("x"))).toBeNull();
  });

  it("retries only errors whose message names one of retryOn, and never a pause", () => {
    const policy = { maxAttempts: 3, initialIntervalMs: 1, backoffFactor: 1, maxIntervalMs: 1, retryOn: ["timed out", "ECONNRESET"] };
    expect(retryDelay(policy, 1, new Error("read ECONNRESET"))).toBe(1);
    expect(retryDelay(policy, 1, new Error("bad input"))).toBeNull();
    expect(retryDelay({ ...policy, retryOn: undefined }, 1, new GraphDrained("pause"))).toBeNull();
  });
});

describe.each(["linear", "parallel"] as const)("node policies (%s)", (scheduler) => {
  it("a failing node is retried with its inputs until it succeeds; each attempt is its own invocation", async () => {
    const { g, calls } = flakyGraph(scheduler, 2, retry(3));
    const coordinator = createInMemoryCoordinator();
    const observer = new RecordingObserver();
    const ctx = g.createContext({ coordinator, observer, input: "job" });
    const result = await g.run(ctx);
    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual(["ok after 3, 1 input!"]);
    expect(calls()).toBe(3);
    const flaky = (await coordinator.nodes.listByInstance(ctx.instanceId)).filter((i) => i.nodeName === "flaky").map((i) => i.status);
    expect(flaky).toEqual(["FAILED", "FAILED", "COMPLETED"]);
    const failures = observer.ofType("node_failed");
    expect(failures.map((e) => [e.attempt, e.retryInMs])).toEqual([
      [1, 5],
      [2, 10],
    ]);
  });

  it("the last attempt's failure fails the run; an error retryOn does not name fails at once", async () => {
    const exhausted = flakyGraph(scheduler, 5, retry(2));
    expect((await exhausted.g.invoke("job").catch((e) => e)).message).toMatch(/call 2/);
    expect(exhausted.calls()).toBe(2);

    const unnamed = flakyGraph(scheduler, 5, retry(4, { retryOn: ["ECONNRESET"] }));
    expect((await unnamed.g.invoke("job").catch((e) => e)).message).toMatch(/call 1/);
    expect(unnamed.calls()).toBe(1);
  });

  it("a timeout stops waiting for a slow execution; with a retry the next, faster attempt completes", async () => {
    const slowOnce = (attempt: number) => sleep(attempt === 1 ? 300 : 1);
    const bounded = flakyGraph(scheduler, 0, { timeoutMs: 30 }, slowOnce);
    const error = await bounded.g.invoke("job").catch((e) => e);
    expect(error).toMatchObject({ code: "GRAPH_NODE_TIMEOUT", message: "node flaky timed out after 30 ms" });

    const retried = flakyGraph(scheduler, 0, { timeoutMs: 30, ...retry(2, { retryOn: ["timed out"] }) }, slowOnce);
    const { result } = await retried.g.invoke("job");
    expect(result.result.map((p) => p.content)).toEqual(["ok after 2, 1 input!"]);
  });

  it("a pause during the backoff drains the run; the resume runs the node again and completes", async () => {
    const control = new GraphRunControl();
    const { g, calls } = flakyGraph(scheduler, 1, retry(3, { initialIntervalMs: 200 }));
    const coordinator = createInMemoryCoordinator();
    const ctx = g.createContext({ coordinator, control, input: "job" });
    const running = g.run(ctx).catch((e) => e);
    await sleep(40); // inside the 200 ms backoff
    control.requestPause();
    const drained = await running;
    expect(drained).toBeInstanceOf(GraphDrained);
    expect((await coordinator.instances.load(ctx.instanceId))?.status).toBe("paused");
    expect(calls()).toBe(1);
    control.reset();
    const result = await g.resume(ctx);
    expect(result.status).toBe("completed");
    expect(calls()).toBe(2);
  });
});
