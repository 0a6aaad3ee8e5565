import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { StateValidationError } from "@/server/graph/errors";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode, type NodeFunction } from "@/server/graph/nodes/function-node";
import { defineGraphState } from "@/server/graph/state";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { continueInstance } from "./testing/durable-run";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

// Library code that writes `ctx.state` directly, on SQLite: a write the state schema refuses fails its
// node at its completion, before that completion is committed. Before, the value was committed with it,
// and the run failed later, on its next resume or recovery, when the stored state no longer loaded.

const Typed = defineGraphState({ count: z.number().default(0), items: z.array(z.number()).default([]) });
type Typed = typeof Typed;

/** START → bump (count + 1, fits) → write (`body`, after an await) → after → END. */
function graph(body: NodeFunction<Typed>) {
  return new Graph({ name: "typed-writes", state: Typed })
    .addNode(new FunctionNode<Typed>("bump", (ctx) => ((ctx.state.count += 1), "bumped")))
    .addNode(new FunctionNode<Typed>("write", async (ctx, input) => (await new Promise((r) => setImmediate(r)), body(ctx, input))))
    .addNode(new FunctionNode<Typed>("after", () => "done"))
    .addEdge(START, "bump")
    .addEdge("bump", "write")
    .addEdge("write", "after")
    .addEdge("after", END)
    .compile();
}

describe("state writes checked at completion, on SQLite", () => {
  let temp: TempDatabase;
  beforeEach(() => {
    temp = tempDatabase();
  });
  afterEach(() => temp[Symbol.dispose]());

  /** Runs `body` as `write` from `{ count: 1, items: [1] }`; reads the outcome back through a new connection. */
  async function failingRun(body: NodeFunction<Typed>) {
    const coordinator = new SqliteCoordinator(temp.db);
    const g = graph(body);
    const ctx = g.createContext({ coordinator, state: { count: 1, items: [1] } });
    const error = await g.run(ctx).then(
      () => null,
      (e: unknown) => e,
    );
    coordinator.flush();
    const reopened = new SqliteCoordinator(temp.reopen());
    const instance = await reopened.instances.load(ctx.instanceId);
    const stored = await reopened.instances.loadState(ctx.instanceId);
    const invocations = await reopened.nodes.listByInstance(ctx.instanceId);
    const snapshots = (temp.db.prepare("SELECT state FROM state_snapshots").all() as { state: string }[]).map((r) => r.state);
    return { error, instance, stored, invocations, snapshots, instanceId: ctx.instanceId, reopened };
  }

  it("a refused write fails its node: FAILED with the error on its invocation, the completion and the value never committed", async () => {
    const run = await failingRun((ctx) => {
      (ctx.state as { count: unknown }).count = "three";
      return "x";
    });
    expect(run.error).toBeInstanceOf(StateValidationError);
    expect(run.error).toMatchObject({ field: "count", node: "write" });
    expect(run.instance?.status).toBe("failed");
    const write = run.invocations.find((i) => i.nodeName === "write");
    expect(write?.status).toBe("FAILED");
    expect(write?.error).toContain('node "write" left state field "count" invalid');
    expect(write?.error).toContain('"three"');
    expect(run.invocations.some((i) => i.nodeName === "after")).toBe(false);
    // The state as `bump` committed it; nowhere in the store is the refused value.
    expect(run.stored).toMatchObject({ count: 2, items: [1] });
    expect(Typed.safeParse(run.stored).success).toBe(true);
    expect(run.snapshots.join("\n")).not.toContain("three");
  });

  it("an array changed in place (which cannot be put back) leaves the store at the last state that fit", async () => {
    const run = await failingRun((ctx) => {
      (ctx.state.items as unknown[]).push("bad item");
      return "x";
    });
    expect(run.error).toMatchObject({ name: "StateValidationError", field: "items", node: "write" });
    expect(run.instance?.status).toBe("failed");
    expect(run.invocations.find((i) => i.nodeName === "write")?.error).toContain('state field "items" invalid');
    expect(run.stored).toMatchObject({ count: 2, items: [1] });
    expect(run.snapshots.join("\n")).not.toContain("bad item");
  });

  it("the failed instance's stored state still loads: new input runs it again as version 2", async () => {
    const run = await failingRun((ctx) => {
      (ctx.state as { count: unknown }).count = { n: 3 };
      return "x";
    });
    expect(run.instance?.status).toBe("failed");
    const fixed = graph((ctx) => ((ctx.state.count *= 10), "fixed"));
    const { graph: bound, ctx } = await continueInstance(fixed, run.reopened, run.instanceId);
    ctx.userInput = { content: "again" };
    const result = await bound.run(ctx);
    expect(result).toMatchObject({ status: "completed", version: 2 });
    expect(ctx.state.count).toBe(30);
  });
});
