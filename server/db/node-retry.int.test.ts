import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** Retries on the durable store: each attempt is committed, and the inputs pass from one to the next. */
describe.each(["linear", "parallel"] as const)("node retries on SQLite (%s)", (scheduler) => {
  let temp: TempDatabase;
  beforeEach(() => (temp = tempDatabase()));
  afterEach(() => temp[Symbol.dispose]());

  it.each([true, false])("attempts are FAILED, FAILED, COMPLETED and the input is consumed once (async node: %s)", async (async) => {
    let calls = 0;
    const policy = { retry: { maxAttempts: 3, initialIntervalMs: 2, backoffFactor: 2, maxIntervalMs: 50 } };
    const graph = new Graph()
      .addNode(new FunctionNode("fan", (ctx) => ["a", "b"].forEach((x) => ctx.deliver(x, "flaky"))))
      .addNode(
        new FunctionNode(
          "flaky",
          async (_ctx, input) => {
            if (async) await sleep(1);
            if (++calls <= 2) throw new Error(`unavailable ${calls}`);
            return input.map((i) => i.content).join("+");
          },
          { policy },
        ),
      )
      .addEdge(START, "fan")
      .addEdge("fan", "flaky")
      .addEdge("flaky", END)
      .compile({ scheduler });
    const { result } = await graph.invoke("go", { coordinator: new SqliteCoordinator(temp.db) });
    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual(["a+b"]);

    const after = new SqliteCoordinator(temp.reopen());
    const flaky = (await after.nodes.listByInstance(result.instanceId)).filter((i) => i.nodeName === "flaky");
    expect(flaky.map((i) => i.status)).toEqual(["FAILED", "FAILED", "COMPLETED"]);
    const rows = await after.delivers.listByInstance(result.instanceId);
    expect(rows.every((r) => r.status === "CONSUMED_COMPLETED")).toBe(true);
    expect(rows.filter((r) => r.targetNode === "flaky").map((r) => r.consumedByInvocationId)).toEqual([flaky[2].invocationId, flaky[2].invocationId]);
  });
});
