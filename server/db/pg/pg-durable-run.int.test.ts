import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isGraphInterrupt } from "@/server/graph/errors";
import { END } from "@/server/graph/names";
import type { HumanInputRequest } from "@/server/graph/nodes/human-input-node";
import { approvalGraph, fanOut, linearChain } from "@/server/graph/testing/fixtures";
import { continueInstance, recoverInstance } from "../testing/durable-run";
import { PgCoordinator } from "./pg-coordinator";
import { PgTestDatabase } from "./testing/pg-test-database";

/**
 * The engine's fixture graphs on PostgreSQL, read back through new connections (another process).
 * One database for the file; every test works on instances of its own.
 */
describe("durable runs on PostgreSQL", () => {
  let database: PgTestDatabase;
  let coordinator: PgCoordinator;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
    coordinator = new PgCoordinator(database.open());
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });

  /** New pools on the same database: what another process would read. */
  const reopened = () => new PgCoordinator(database.open());

  async function ledgerOf(c: PgCoordinator, instanceId: string) {
    return (await c.delivers.listByInstance(instanceId)).map((r) => r.status);
  }

  it("runs a linear chain: every invocation committed, every deliver consumed, state and output saved", async () => {
    const chain = linearChain(5);
    const { result } = await chain.invoke("go", { coordinator });
    expect(result).toMatchObject({ status: "completed", reachedEnd: true, iterations: 7 });

    const after = reopened();
    expect(await after.instances.load(result.instanceId)).toMatchObject({ status: "completed", version: 1, nodeIdMap: chain.nodeIdMap });
    const invocations = await after.nodes.listByInstance(result.instanceId);
    expect(invocations.map((i) => [i.nodeName, i.status])).toEqual(
      ["__start__", "n0", "n1", "n2", "n3", "n4", END].map((n) => [n, "COMPLETED"]),
    );
    expect(await ledgerOf(after, result.instanceId)).toEqual(Array(6).fill("CONSUMED_COMPLETED"));
    const output = [{ content: null, source: "n4" }];
    expect(await after.instances.loadState(result.instanceId)).toEqual({ resumeTarget: null, result: output });
    expect((await after.instances.ioRecords(result.instanceId))[0]).toEqual({ instanceId: result.instanceId, version: 1, input: { content: "go" }, output });
  });

  it("re-invokes a completed instance as version 2 with its own IO record", async () => {
    const chain = linearChain(2);
    const first = await chain.invoke("one", { coordinator });
    const again = chain.createContext({ coordinator, instanceId: first.result.instanceId, input: "two" });
    expect((await chain.run(again)).version).toBe(2);
    const after = reopened();
    expect((await after.instances.versions(first.result.instanceId)).map((v) => [v.version, v.status])).toEqual([
      [1, "completed"],
      [2, "completed"],
    ]);
    expect((await after.instances.ioRecords(first.result.instanceId)).map((r) => r.input.content)).toEqual(["one", "two"]);
  });

  it("runs a parallel fan-out of 50 branches and the join once, each branch once", async () => {
    const fan = fanOut(50);
    const { result } = await fan.invoke(null, { coordinator });
    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual([50]);

    const after = reopened();
    const invocations = await after.nodes.listByInstance(result.instanceId);
    expect(invocations).toHaveLength(50 + 4);
    expect(invocations.every((i) => i.status === "COMPLETED" && i.version === 1)).toBe(true);
    const ledger = await after.delivers.listByInstance(result.instanceId);
    expect(ledger).toHaveLength(1 + 50 + 50 + 1);
    expect(ledger.every((r) => r.status === "CONSUMED_COMPLETED")).toBe(true);
    const intoJoin = ledger.filter((r) => r.targetNode === "join");
    expect(intoJoin.map((r) => r.content).sort((a, b) => Number(a) - Number(b))).toEqual([...Array(50).keys()]);
    expect(new Set(intoJoin.map((r) => r.consumedByInvocationId)).size).toBe(1);
    expect((await after.instances.ioRecords(result.instanceId))[0].output).toEqual([{ content: 50, source: "join" }]);
  });

  it("interrupts at the approval node, then a new process resumes it without re-running upstream", async () => {
    const approval = approvalGraph();
    const ctx = approval.createContext({ coordinator, input: "ship?" });
    const interrupt = await approval.run(ctx).catch((e: unknown) => e);
    expect(isGraphInterrupt(interrupt)).toBe(true);
    expect((interrupt as { value: HumanInputRequest }).value).toMatchObject({ kind: "human_input", node: "approve", context: ["draft"] });
    const instanceId = ctx.instanceId;

    const after = reopened();
    expect(await after.instances.load(instanceId)).toMatchObject({ status: "paused" });
    expect(await after.instances.loadState(instanceId)).toMatchObject({ resumeTarget: "approve" });
    expect((await after.nodes.listByInstance(instanceId)).map((i) => [i.nodeName, i.status])).toEqual([
      ["__start__", "COMPLETED"],
      ["prepare", "COMPLETED"],
      ["approve", "CANCELLED"],
    ]);
    // The cancelled invocation's input stays claimed, re-offered to the retry.
    expect(await ledgerOf(after, instanceId)).toEqual(["CONSUMED_COMPLETED", "CONSUMED_PENDING"]);

    // A fresh compile (fresh node ids), re-bound to the instance's frozen map, as after a restart.
    const resumed = await continueInstance(approvalGraph(), after, instanceId);
    const result = await resumed.graph.resume(resumed.ctx, "yes");
    expect(result).toMatchObject({ status: "completed", instanceId });
    expect(result.result.map((p) => p.content)).toEqual(["yes"]);

    const invocations = await after.nodes.listByInstance(instanceId);
    expect(invocations.filter((i) => i.nodeName === "prepare")).toHaveLength(1);
    expect(invocations.filter((i) => i.nodeName === "approve").map((i) => [i.version, i.status])).toEqual([
      [1, "CANCELLED"],
      [2, "COMPLETED"],
    ]);
    expect(await after.instances.load(instanceId)).toMatchObject({ status: "completed" });
    expect(await ledgerOf(after, instanceId)).not.toContain("PENDING");
    expect(await ledgerOf(after, instanceId)).not.toContain("CONSUMED_PENDING");
  });

  it("recovers a near-complete instance (END committed, the process died before the status change): nothing runs again", async () => {
    // The crash lands after END's completion committed (PgCoordinator holds a completion until the next
    // statement), at the first step of finishing the instance.
    class DiesWhileFinishing extends PgCoordinator {
      override async checkpointState(): Promise<never> {
        await this.flush();
        throw new Error("killed");
      }
    }
    const chain = linearChain(2);
    const ctx = chain.createContext({ coordinator: new DiesWhileFinishing(database.open()), input: "go" });
    await expect(chain.run(ctx)).rejects.toThrow("killed");

    const after = reopened();
    expect(await after.instances.load(ctx.instanceId)).toMatchObject({ status: "running" });
    const result = await recoverInstance(linearChain(2), after, ctx.instanceId);
    expect(result).toMatchObject({ status: "completed", reachedEnd: true });
    expect(result.result).toEqual([{ content: null, source: "n1" }]);
    expect((await after.nodes.listByInstance(ctx.instanceId)).map((i) => i.nodeName)).toEqual(["__start__", "n0", "n1", END]);
    expect((await after.instances.ioRecords(ctx.instanceId))[0].output).toEqual([{ content: null, source: "n1" }]);
  });

  it("a run whose database connection is refused ends as a crash (abandonsRun), leaving the last commit", async () => {
    const broken = new PgCoordinator(
      (await import("./pg-database")).openPgEngineDatabase({ url: "postgresql://postgres@127.0.0.1:1/none", maxConnections: 1 }),
    );
    const error = await linearChain(1).invoke("x", { coordinator: broken }).catch((e: unknown) => e);
    expect(broken.abandonsRun(error)).toBe(true);
    await broken.db.close();
  });
});
