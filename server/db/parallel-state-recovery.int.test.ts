import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { defineGraphState } from "@/server/graph/state";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { recoverInstance } from "./testing/durable-run";
import { tempDatabase } from "./testing/temp-database";

const CountState = defineGraphState({ count: z.number().default(0) });

/** START → slow, fast → END (parallel). `slow` counts, then waits on `gate`; `fast` returns after 5 ms. */
function graph(gate: () => Promise<unknown>) {
  return new Graph({ name: "count", state: CountState })
    .addNode(
      new FunctionNode<typeof CountState>("slow", async (ctx) => {
        ctx.state.count++;
        await gate();
        return "slow";
      }),
    )
    .addNode(new FunctionNode<typeof CountState>("fast", async () => (await new Promise((r) => setTimeout(r, 5)), "fast")))
    .addEdge(START, "slow")
    .addEdge(START, "fast")
    .addEdge("slow", END)
    .addEdge("fast", END)
    .compile({ scheduler: "parallel" });
}

/**
 * The documented contract (README, "Durable execution"): node bodies run at least once, like the ledger
 * delivers. Parallel nodes share one state, so a sibling's completion saves a running node's changes; if
 * the process dies before that node completes, recovery runs it again and its changes apply again.
 * Exactly-once state would need per-invocation write buffers merged at completion (not built yet).
 */
describe("shared state of parallel nodes across a crash", () => {
  it("a node cut off by a crash runs again: state it changed before the crash is changed again (at least once)", async () => {
    using temp = tempDatabase();
    let fastDone!: () => void;
    const fastCompleted = new Promise<void>((r) => (fastDone = r));
    const first = graph(() => new Promise(() => {})); // `slow` never finishes: the process dies first
    const ctx = first.createContext({
      coordinator: new SqliteCoordinator(temp.db),
      input: "go",
      observer: { onEvent: (e) => e.type === "node_completed" && e.node === "fast" && fastDone() },
    });
    void first.run(ctx);
    await fastCompleted;
    const instanceId = ctx.instanceId;

    const coordinator = new SqliteCoordinator(temp.reopen()); // the crash: a new process on the file
    const result = await recoverInstance(graph(async () => undefined), coordinator, instanceId);
    expect(result.status).toBe("completed");
    // The saved state already held slow's first increment; the re-run adds a second.
    expect(((await coordinator.instances.loadState(instanceId)) as { count: number }).count).toBe(2);
  });
});
