import { expect, it } from "vitest";
import { isGraphInterrupt } from "@/server/graph/errors";
import { END, START } from "@/server/graph/names";
import type { HumanInputRequest } from "@/server/graph/nodes/human-input-node";
import type { GraphPersistenceCoordinator } from "@/server/graph/persistence/coordinator";
import { approvalGraph, fanOut, linearChain } from "@/server/graph/testing/fixtures";
import { continueInstance, recoverInstance } from "./durable-run";

/** What the durable-run tests need of a backend: the coordinator runs use, and a new connection to read back. */
export interface DurableRunBackend {
  coordinator(): GraphPersistenceCoordinator;
  /** A coordinator on new connections to the same database: what another process would read. */
  reopened(): GraphPersistenceCoordinator;
  /** Commits what `c` wrote and holds uncommitted (SQLite's deferred steps), as an acknowledgement waits for. */
  flush?(c: GraphPersistenceCoordinator): void;
}

/** The coordinator of a process that dies as `node`'s invocation opens: it writes nothing more. */
function dyingAt(c: GraphPersistenceCoordinator, node: string): GraphPersistenceCoordinator {
  const death = new Error(`the process died opening ${node}`);
  return new Proxy(c, {
    get(target, key) {
      if (key === "openInvocation") {
        return (args: { instanceId: string; nodeId: string; nodeName: string }) => {
          if (args.nodeName === node) throw death;
          return target.openInvocation(args);
        };
      }
      if (key === "abandonsRun") return (error: unknown) => error === death || target.abandonsRun(error);
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function ledgerOf(c: GraphPersistenceCoordinator, instanceId: string) {
  return (await c.delivers.listByInstance(instanceId)).map((r) => r.status);
}

/** The engine's fixture graphs run on a durable backend and read back as another process would (SQLite, PostgreSQL). */
export function durableRunTests(backend: DurableRunBackend): void {
  it("runs a linear chain: every invocation committed, every deliver consumed, state and output saved", async () => {
    const chain = linearChain(5);
    const { result } = await chain.invoke("go", { coordinator: backend.coordinator() });
    expect(result).toMatchObject({ status: "completed", reachedEnd: true, iterations: 7 });

    const after = backend.reopened();
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
    const first = await chain.invoke("one", { coordinator: backend.coordinator() });
    const again = chain.createContext({ coordinator: backend.coordinator(), instanceId: first.result.instanceId, input: "two" });
    expect((await chain.run(again)).version).toBe(2);
    const after = backend.reopened();
    expect((await after.instances.versions(first.result.instanceId)).map((v) => [v.version, v.status])).toEqual([
      [1, "completed"],
      [2, "completed"],
    ]);
    expect((await after.instances.ioRecords(first.result.instanceId)).map((r) => r.input.content)).toEqual(["one", "two"]);
  });

  it("runs a parallel fan-out of 50 branches and the join once, each branch once", async () => {
    const fan = fanOut(50);
    const { result } = await fan.invoke(null, { coordinator: backend.coordinator() });
    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual([50]);

    const after = backend.reopened();
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
    const ctx = approval.createContext({ coordinator: backend.coordinator(), input: "ship?" });
    const interrupt = await approval.run(ctx).catch((e: unknown) => e);
    expect(isGraphInterrupt(interrupt)).toBe(true);
    expect((interrupt as { value: HumanInputRequest }).value).toMatchObject({ kind: "human_input", node: "approve", context: ["draft"] });
    const instanceId = ctx.instanceId;

    const after = backend.reopened();
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

  it("recovers a run that died between its interrupt and its pause by asking again, never by resuming without an answer", async () => {
    const approval = approvalGraph();
    const ctx = approval.createContext({ coordinator: backend.coordinator(), input: "ship?" });
    expect(isGraphInterrupt(await approval.run(ctx).catch((e: unknown) => e))).toBe(true);
    const instanceId = ctx.instanceId;
    const after = backend.reopened();
    // As if the process had died once the interrupt's state (resumeTarget set) was committed, before the
    // PAUSED status was (PostgreSQL's worker commits the two apart; a failed pause write does too).
    await after.instances.transition(instanceId, "running");
    expect(await after.instances.loadState(instanceId)).toMatchObject({ resumeTarget: "approve" });

    // Crash recovery has no answer to give: the human-input node asks again and the run waits.
    const again = await recoverInstance(approvalGraph(), after, instanceId).catch((e: unknown) => e);
    expect(isGraphInterrupt(again)).toBe(true);
    expect((again as { value: HumanInputRequest }).value).toMatchObject({ kind: "human_input", node: "approve" });
    expect(await after.instances.load(instanceId)).toMatchObject({ status: "paused" });
    const invocations = await after.nodes.listByInstance(instanceId);
    expect(invocations.filter((i) => i.nodeName === "prepare")).toHaveLength(1);
    expect(invocations.filter((i) => i.nodeName === "approve").map((i) => i.status)).toEqual(["CANCELLED", "CANCELLED"]);
    expect(invocations.some((i) => i.nodeName === END)).toBe(false);

    // The answer given then is the one the run goes on with.
    const resumed = await continueInstance(approvalGraph(), after, instanceId);
    const result = await resumed.graph.resume(resumed.ctx, "yes");
    expect(result).toMatchObject({ status: "completed", instanceId });
    expect(result.result.map((p) => p.content)).toEqual(["yes"]);
  });

  it("recovers a resume that died before its entry node committed with the answer it was given, not by asking again", async () => {
    const approval = approvalGraph();
    const ctx = approval.createContext({ coordinator: backend.coordinator(), input: "ship?" });
    expect(isGraphInterrupt(await approval.run(ctx).catch((e: unknown) => e))).toBe(true);
    const instanceId = ctx.instanceId;

    // Answered "yes" and acknowledged (what the resume wrote is committed); the process dies before the
    // resumed run's entry node commits.
    const first = backend.reopened();
    const dying = await continueInstance(approvalGraph(), dyingAt(first, START), instanceId);
    expect(await dying.graph.resume(dying.ctx, "yes").catch((e: unknown) => e)).toMatchObject({ message: `the process died opening ${START}` });
    backend.flush?.(first);
    const after = backend.reopened();
    expect(await after.instances.loadState(instanceId)).toMatchObject({ resumeTarget: "approve", resumeWith: { value: "yes" } });

    const result = await recoverInstance(approvalGraph(), after, instanceId);
    expect(result).toMatchObject({ status: "completed", instanceId });
    expect(result.result.map((p) => p.content)).toEqual(["yes"]);
    const invocations = await after.nodes.listByInstance(instanceId);
    expect(invocations.filter((i) => i.nodeName === "prepare")).toHaveLength(1);
    expect(invocations.filter((i) => i.nodeName === "approve").map((i) => i.status)).toEqual(["CANCELLED", "COMPLETED"]);
    const state = (await after.instances.loadState(instanceId)) as Record<string, unknown>;
    expect(state.resumeTarget).toBeNull();
    expect(state).not.toHaveProperty("resumeWith");
  });
}
