import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newSnowflake } from "@/server/graph/ids";
import { START } from "@/server/graph/names";
import type { NewDeliverRow } from "@/server/graph/persistence/records";
import { closeGraphDatabase } from "./graph-database";
import { commitWith, onCommitted } from "./deferred-transaction";
import { SqliteCoordinator } from "./sqlite-coordinator";
import { tempDatabase, type TempDatabase } from "./testing/temp-database";

/** Group commit as another process sees it: only commit points, each a state the lifecycle passes through. */
describe("group commit on the engine's connection", () => {
  let temp: TempDatabase;
  let coordinator: SqliteCoordinator;
  let other: BetterSqlite3.Database;
  let instanceId: string;
  beforeEach(async () => {
    temp = tempDatabase();
    coordinator = new SqliteCoordinator(temp.db);
    other = new BetterSqlite3(temp.file);
    instanceId = (await coordinator.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } })).instanceId;
    coordinator.flush(); // a create commits with the run's first node; these tests start from it committed
  });
  afterEach(() => {
    other.close();
    temp[Symbol.dispose]();
  });

  /** Invocation statuses and ledger statuses, read through another connection. */
  const seen = () => ({
    invocations: (other.prepare(`SELECT status FROM node_invocations ORDER BY started_at, invocation_id`).pluck().all() as string[]),
    ledger: (other.prepare(`SELECT status FROM deliver_rows ORDER BY seq`).pluck().all() as string[]),
  });
  const open = (node: string) => coordinator.openInvocation({ instanceId, nodeId: `node_${node}`, nodeName: node });
  const row = (source: string, sourceInvocationId: string, target: string): NewDeliverRow => ({
    deliverId: newSnowflake(),
    instanceId,
    sourceNode: source,
    sourceNodeId: `node_${source}`,
    sourceInvocationId,
    targetNode: target,
    targetNodeId: `node_${target}`,
    content: `${source}→${target}`,
    createdAt: Date.now(),
  });

  const microtask = () => Promise.resolve();

  it("a synchronous node's begin and completion become visible together, at the end of the stretch", async () => {
    const { invocation } = open("a");
    coordinator.completeInvocation(invocation, [row("a", invocation.invocationId, "b")]);
    expect(seen().invocations).toEqual([]);
    await microtask();
    expect(seen()).toEqual({ invocations: ["COMPLETED"], ledger: ["PENDING"] });
  });

  it("a node that awaits shows RUNNING from the next microtask on", async () => {
    open("a");
    await microtask();
    expect(seen().invocations).toEqual(["RUNNING"]);
  });

  it("a successor's begin commits the completion it reads from first; siblings share one commit", async () => {
    const fan = open("fan");
    coordinator.completeInvocation(fan.invocation, ["b1", "b2"].map((t) => row("fan", fan.invocation.invocationId, t)));
    expect(seen().invocations).toEqual([]);
    const b1 = open("b1"); // reads fan's rows: fan's completion commits now (b1's begin joins the next commit)
    expect(seen()).toEqual({ invocations: ["COMPLETED"], ledger: ["PENDING", "PENDING"] });
    coordinator.completeInvocation(b1.invocation, [row("b1", b1.invocation.invocationId, "join")]);
    const b2 = open("b2"); // a sibling: nothing to commit first
    coordinator.completeInvocation(b2.invocation, [row("b2", b2.invocation.invocationId, "join")]);
    expect(seen().invocations).toEqual(["COMPLETED"]);
    await microtask();
    expect(seen().invocations).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
  });

  it("START commits with its first successor, which reads START's rows without a commit first", async () => {
    const start = open(START);
    coordinator.completeInvocation(start.invocation, [row(START, start.invocation.invocationId, "a")]);
    await microtask();
    expect(seen().invocations).toEqual([]);
    const a = open("a");
    expect(a.inputs).toHaveLength(1);
    expect(seen().invocations).toEqual([]);
    coordinator.completeInvocation(a.invocation, [row("a", a.invocation.invocationId, "b")]);
    coordinator.promoteConsumed(a.invocation);
    await microtask();
    expect(seen()).toEqual({ invocations: ["COMPLETED", "COMPLETED"], ledger: ["CONSUMED_COMPLETED", "PENDING"] });
  });

  it("a crash before START's first successor commits leaves neither written", async () => {
    const start = open(START);
    coordinator.completeInvocation(start.invocation, [row(START, start.invocation.invocationId, "a")]);
    open("a");
    const db = temp.reopen(); // the process dies while a runs
    expect(db.prepare(`SELECT count(*) FROM node_invocations`).pluck().get()).toBe(0);
    expect(db.prepare(`SELECT count(*) FROM deliver_rows`).pluck().get()).toBe(0);
  });

  it("a promotion commits with the next commit, at the latest the next macrotask", async () => {
    const a = open("a");
    coordinator.completeInvocation(a.invocation, [row("a", a.invocation.invocationId, "b")]);
    const b = open("b");
    expect(b.inputs).toHaveLength(1);
    coordinator.completeInvocation(b.invocation, []);
    await microtask();
    coordinator.promoteConsumed(b.invocation);
    await microtask();
    expect(seen().ledger).toEqual(["CONSUMED_PENDING"]);
    await new Promise((r) => setImmediate(r));
    expect(seen().ledger).toEqual(["CONSUMED_COMPLETED"]);
  });

  it("a node that begins, completes and promotes its inputs in one stretch commits their final states", async () => {
    const a = open("a");
    coordinator.completeInvocation(a.invocation, [row("a", a.invocation.invocationId, "b")]);
    const b = open("b");
    coordinator.completeInvocation(b.invocation, []);
    coordinator.promoteConsumed(b.invocation);
    expect(seen()).toEqual({ invocations: ["COMPLETED"], ledger: ["PENDING"] });
    await microtask();
    expect(seen()).toEqual({ invocations: ["COMPLETED", "COMPLETED"], ledger: ["CONSUMED_COMPLETED"] });
    expect(other.prepare(`SELECT consumed_by FROM deliver_rows`).pluck().get()).toBe(b.invocation.invocationId);
  });

  it("begins held by two coordinators on one connection are both written when it commits", async () => {
    const second = new SqliteCoordinator(temp.db);
    open("a");
    second.openInvocation({ instanceId, nodeId: "node_b", nodeName: "b" });
    await microtask();
    expect(seen().invocations).toEqual(["RUNNING", "RUNNING"]);
  });

  it("a read through the stores sees a begin held in memory", () => {
    const a = open("a");
    coordinator.completeInvocation(a.invocation, [row("a", a.invocation.invocationId, "b")]);
    const b = open("b");
    expect(coordinator.nodes.get(b.invocation.invocationId)?.status).toBe("RUNNING");
    expect(coordinator.delivers.listByInstance(instanceId).map((r) => [r.status, r.consumedByInvocationId])).toEqual([
      ["CONSUMED_PENDING", b.invocation.invocationId],
    ]);
  });

  it("a create and a resume commit with the run's first node, at the latest the next macrotask", async () => {
    const created = coordinator.instances.create({ graphName: "g", nodeIdMap: {}, input: { content: 1 } });
    const { invocation } = coordinator.openInvocation({ instanceId: created.instanceId, nodeId: "node_a", nodeName: "a" });
    coordinator.completeInvocation(invocation, []);
    const count = () => other.prepare(`SELECT count(*) FROM graph_instances`).pluck().get();
    expect(count()).toBe(1);
    await microtask();
    expect(count()).toBe(2);
    expect(seen().invocations).toEqual(["COMPLETED"]);

    coordinator.instances.transition(created.instanceId, "paused");
    coordinator.instances.transition(created.instanceId, "running");
    const status = () => other.prepare(`SELECT status FROM graph_instances WHERE instance_id = ?`).pluck().get(created.instanceId);
    expect(status()).toBe("paused");
    await new Promise((r) => setImmediate(r));
    expect(status()).toBe("running");
  });

  it("a status change commits the deferred steps with it", async () => {
    open("a");
    await coordinator.instances.transition(instanceId, "paused");
    expect(seen().invocations).toEqual(["RUNNING"]);
    expect(other.prepare(`SELECT status FROM graph_instances`).pluck().get()).toBe("paused");
  });

  it("a node cancelled in the stretch it began in commits with the status change that follows", async () => {
    const a = open("a");
    coordinator.completeInvocation(a.invocation, [row("a", a.invocation.invocationId, "b")]);
    const b = open("b");
    coordinator.cancelInvocation(b.invocation, "interrupt");
    await microtask();
    expect(seen()).toEqual({ invocations: ["COMPLETED"], ledger: ["PENDING"] });
    coordinator.instances.transition(instanceId, "paused");
    expect(seen()).toEqual({ invocations: ["COMPLETED", "CANCELLED"], ledger: ["CONSUMED_PENDING"] });
  });

  it("a node cancelled in the stretch it began in commits at the latest the next macrotask", async () => {
    coordinator.failInvocation(open("a").invocation, "boom");
    await microtask();
    expect(seen().invocations).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(seen().invocations).toEqual(["FAILED"]);
  });

  it("such a cancel leaves a sibling that awaits showing RUNNING from the next microtask", async () => {
    open("a"); // awaits I/O
    coordinator.cancelInvocation(open("b").invocation, "interrupt");
    await microtask();
    expect(seen().invocations).toEqual(["RUNNING", "CANCELLED"]);
  });

  it("a crash between such a cancel and its status change leaves the input open for a retry", () => {
    const a = open("a");
    coordinator.completeInvocation(a.invocation, [row("a", a.invocation.invocationId, "b")]);
    coordinator.promoteConsumed(a.invocation);
    coordinator.cancelInvocation(open("b").invocation, "interrupt");
    const db = temp.reopen();
    expect(db.prepare(`SELECT node_name, status FROM node_invocations`).raw().all()).toEqual([["a", "COMPLETED"]]);
    expect(db.prepare(`SELECT status FROM deliver_rows`).pluck().all()).toEqual(["PENDING"]);
  });

  it("a write that fails inside commitWith rolls back alone; the deferred steps still commit", () => {
    open("a");
    expect(() =>
      commitWith(temp.db, () => {
        temp.db.prepare(`UPDATE graph_instances SET status = 'failed'`).run();
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(seen().invocations).toEqual(["RUNNING"]);
    expect(other.prepare(`SELECT status FROM graph_instances`).pluck().get()).toBe("running");
  });

  it("onCommitted runs after the deferred steps commit, at once when nothing is deferred", async () => {
    const calls: string[] = [];
    onCommitted(temp.db, () => calls.push("now"));
    const { invocation } = open("a");
    onCommitted(temp.db, () => calls.push(`after commit, seen ${seen().invocations.join()}`));
    coordinator.completeInvocation(invocation, []);
    expect(calls).toEqual(["now"]);
    await microtask();
    expect(calls).toEqual(["now", "after commit, seen COMPLETED"]);
  });

  it("closeGraphDatabase commits what is deferred", () => {
    open("a");
    closeGraphDatabase(temp.db);
    expect(seen().invocations).toEqual(["RUNNING"]);
  });
});
