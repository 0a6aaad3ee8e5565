import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { RecordingObserver } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import type { SchedulerKind } from "./scheduler";

/** START → flaky → END; `flaky` always fails (asynchronously), up to 3 attempts 5 ms apart. */
function alwaysFailing(scheduler: SchedulerKind) {
  const starts: number[] = [];
  const g = new Graph()
    .addNode(
      new FunctionNode(
        "flaky",
        async () => {
          starts.push(Date.now());
          await sleep(1);
          throw new Error("upstream unavailable");
        },
        { policy: { retry: { maxAttempts: 3, initialIntervalMs: 5, backoffFactor: 1, maxIntervalMs: 5 } } },
      ),
    )
    .addEdge(START, "flaky")
    .addEdge("flaky", END)
    .compile({ scheduler });
  return { g, starts };
}

describe.each(["linear", "parallel"] as const)("a retry owed from an earlier run (%s scheduler)", (scheduler) => {
  it("waits out the rest of its backoff, then runs the attempt after the one that failed", async () => {
    const { g, starts } = alwaysFailing(scheduler);
    const observer = new RecordingObserver();
    const began = Date.now();
    const ctx = g.createContext({ input: "x", observer, owedRetries: new Map([["flaky", { attempt: 1, dueAt: began + 80 }]]) });
    await expect(g.run(ctx, "fresh")).rejects.toThrow("upstream unavailable");
    expect(starts[0] - began).toBeGreaterThanOrEqual(75);
    expect(observer.ofType("node_failed").map((e) => e.attempt ?? null)).toEqual([2, null]);
    expect(ctx.owedRetries?.size).toBe(0);
  });

  it("runs at once when the backoff was already due", async () => {
    const { g, starts } = alwaysFailing(scheduler);
    const began = Date.now();
    const ctx = g.createContext({ input: "x", owedRetries: new Map([["flaky", { attempt: 2, dueAt: began - 1_000 }]]) });
    await expect(g.run(ctx, "fresh")).rejects.toThrow("upstream unavailable");
    expect(starts).toHaveLength(1);
    expect(starts[0] - began).toBeLessThan(50);
  });
});
