import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInvocationStateError } from "@/server/graph/errors";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { FunctionNode } from "@/server/graph/nodes/function-node";
import { linearChain, twoNodeLoop } from "@/server/graph/testing/fixtures";
import { ledgerRow } from "../testing/ledger-rows";
import { PgCoordinator } from "./pg-coordinator";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * What PgCoordinator's grouped commit promises: a completion it holds is written with the next begin
 * (one statement per chain node), before any read or write through its stores, and at the next
 * macrotask at the latest; a held completion that lost its compare-and-swap takes the statement down.
 */
describe("PgCoordinator's held completions", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  /** Counts the statements sent through a pool. */
  function counted(pool: pg.Pool) {
    const count = { n: 0 };
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      count.n++;
      return query(...args);
    };
    return count;
  }

  it("runs a chain node in one statement", async () => {
    const db = database.open();
    const steps = counted(db.steps);
    const acks = counted(db.acks);
    const coordinator = new PgCoordinator(db);
    const { result } = await linearChain(50).invoke(null, { coordinator });
    expect(result.status).toBe("completed");
    // 52 nodes (START, n0..n49, END): 52 begins, each but the first with its predecessor's completion;
    // END's completion goes with the state checkpoint, then the output. The create and the final status
    // are acknowledged (synchronous) commits.
    expect(steps.n).toBeLessThanOrEqual(52 + 3);
    expect(acks.n).toBe(2);
  });

  it("runs chain nodes of instances running at once on one coordinator in one statement each (a held completion per instance)", async () => {
    const db = database.open();
    const steps = counted(db.steps);
    const coordinator = new PgCoordinator(db);
    // Each node yields to the event loop, so the eight runs' steps interleave.
    const g = new Graph({ name: "interleaved" });
    let previous: string = START;
    for (let i = 0; i < 20; i++) {
      g.addNode(new FunctionNode(`n${i}`, async (_ctx, input) => (await new Promise((r) => setImmediate(r)), input[0]?.content ?? null))).addEdge(previous, `n${i}`);
      previous = `n${i}`;
    }
    g.addEdge(previous, END);
    const chain = g.compile({ maxIterations: 100 });
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => chain.invoke(i, { coordinator })));
    expect(runs.map((r) => r.result.status)).toEqual(Array(8).fill("completed"));
    expect(steps.n).toBeLessThanOrEqual(8 * (22 + 3));
  });

  it("writes a held completion at the next macrotask when no begin follows", async () => {
    const coordinator = new PgCoordinator(database.open());
    const other = new PgCoordinator(database.open());
    const { instanceId } = await coordinator.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } });
    const { invocation } = await coordinator.openInvocation({ instanceId, nodeId: "node_a", nodeName: "a" });
    const outbox = [ledgerRow(instanceId, invocation, "b", "a→b")];
    const promoted = coordinator.completeInvocation(invocation, outbox, { done: true });
    expect(Array.isArray(promoted)).toBe(true); // answered at once: held
    // Nothing else is asked of `coordinator`: the macrotask alone writes it.
    let status: string | undefined;
    for (let tries = 0; tries < 100 && status !== "COMPLETED"; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await other.nodes.get(invocation.invocationId))!.status;
    }
    expect(status).toBe("COMPLETED");
    expect((await other.delivers.consumable(instanceId, "node_b")).map((r) => [r.content, r.status])).toEqual([["a→b", "PENDING"]]);
    expect(await other.instances.loadState(instanceId)).toEqual({ done: true });
  });

  it("writes a held completion before any read or write through its stores", async () => {
    const coordinator = new PgCoordinator(database.open());
    const { instanceId } = await coordinator.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } });
    const { invocation } = await coordinator.openInvocation({ instanceId, nodeId: "node_a", nodeName: "a" });
    coordinator.completeInvocation(invocation, [ledgerRow(instanceId, invocation, "b", 1)]);
    expect((await coordinator.nodes.get(invocation.invocationId))!.status).toBe("COMPLETED");
    expect(await coordinator.delivers.listByInstance(instanceId)).toHaveLength(1);
  });

  it("numbers a node that follows itself from its own held completion, and does not re-offer its inputs", async () => {
    const coordinator = new PgCoordinator(database.open());
    const { instanceId } = await coordinator.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } });
    await coordinator.delivers.appendPending(ledgerRow(instanceId, null, "a", "ext"));
    const first = await coordinator.openInvocation({ instanceId, nodeId: "node_a", nodeName: "a" });
    coordinator.completeInvocation(first.invocation, [ledgerRow(instanceId, first.invocation, "a", "again")]);
    const second = await coordinator.openInvocation({ instanceId, nodeId: "node_a", nodeName: "a" });
    expect(second.invocation).toMatchObject({ version: 2, parentVersion: 1 });
    expect(second.inputs.map((r) => r.content)).toEqual(["again"]);
    expect((await coordinator.delivers.listByInstance(instanceId)).map((r) => [r.content, r.status, r.consumedByInvocationId])).toEqual([
      ["ext", "CONSUMED_COMPLETED", first.invocation.invocationId],
      ["again", "CONSUMED_PENDING", second.invocation.invocationId],
    ]);
  });

  it("runs a ⇄ b loops and a fan-out through held completions: every node once per visit, the ledger closed", async () => {
    const coordinator = new PgCoordinator(database.open());
    const { result } = await twoNodeLoop(5).invoke(null, { coordinator });
    expect(result.status).toBe("completed");
    const invocations = await coordinator.nodes.listByInstance(result.instanceId);
    expect(invocations.filter((i) => i.nodeName === "a").map((i) => [i.version, i.parentVersion])).toEqual([
      [1, null],
      [2, 1],
      [3, 2],
      [4, 3],
      [5, 4],
    ]);
    expect((await coordinator.delivers.listByInstance(result.instanceId)).every((r) => r.status === "CONSUMED_COMPLETED")).toBe(true);

    const g = new Graph({ name: "sync-fan" });
    g.addNode(new FunctionNode("fan", (ctx) => ["x", "y", "z"].forEach((t, i) => ctx.deliver(i, t)))).addEdge(START, "fan");
    for (const t of ["x", "y", "z"]) g.addNode(new FunctionNode(t, (_c, input) => input[0].content)).addEdge("fan", t).addEdge(t, END);
    const fan = await g.compile({ scheduler: "parallel" }).invoke(null, { coordinator });
    expect(fan.result.status).toBe("completed");
    expect(fan.result.result.map((p) => p.content).sort()).toEqual([0, 1, 2]);
  });

  it("fails the statement that writes a held completion another process finished first, and begins nothing", async () => {
    const coordinator = new PgCoordinator(database.open());
    const other = new PgCoordinator(database.open());
    const { instanceId } = await coordinator.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } });
    const { invocation } = await coordinator.openInvocation({ instanceId, nodeId: "node_a", nodeName: "a" });
    await other.nodes.markCrashed(invocation.invocationId); // another process recovered the instance meanwhile
    coordinator.completeInvocation(invocation, [ledgerRow(instanceId, invocation, "b", 1)]); // held: it does not know
    const error = await Promise.resolve(coordinator.openInvocation({ instanceId, nodeId: "node_b", nodeName: "b" })).catch((e: unknown) => e);
    expect(isInvocationStateError(error)).toBe(true);
    expect(error).toMatchObject({ invocationId: invocation.invocationId, actual: "CRASHED" });
    expect((await other.nodes.listByInstance(instanceId)).map((i) => [i.nodeName, i.status])).toEqual([["a", "CRASHED"]]);
    expect(await other.delivers.listByInstance(instanceId)).toEqual([]);
  });
});
