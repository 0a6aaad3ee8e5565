import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Awaitable } from "../../awaitable";
import { isInvocationStateError } from "../../errors";
import type { GraphPersistenceCoordinator } from "../coordinator";
import type { DeliverRow, NodeInvocation } from "../records";
import { caught, type ConformanceOptions, deliverRow, type MakeSubject, newId, nodeIdOf, payload } from "./harness";

export interface CoordinatorConformanceOptions extends ConformanceOptions<GraphPersistenceCoordinator> {
  /**
   * Simulates a process restart before `recover()`: a new coordinator over the same database. Defaults
   * to the same coordinator, which is all the in-memory stores can offer.
   */
  restart?: (crashed: GraphPersistenceCoordinator) => Awaitable<GraphPersistenceCoordinator>;
}

const ids = (rows: readonly { deliverId: string }[]) => rows.map((r) => r.deliverId);

/**
 * The coordinator's lifecycle steps over real stores, and `recover()` closing both crash windows:
 * a source that completed between staging and promotion, a consumer that completed between claiming
 * and promoting. Crashes are simulated by running the lifecycle's store calls only part way.
 */
export function describeCoordinatorConformance(
  name: string,
  make: MakeSubject<GraphPersistenceCoordinator>,
  options: CoordinatorConformanceOptions = {},
): void {
  describe(`GraphPersistenceCoordinator conformance: ${name}`, () => {
    let coord: GraphPersistenceCoordinator;
    let instanceId: string;
    beforeEach(async () => {
      coord = await make();
      instanceId = await newInstance();
    });
    afterEach(async () => {
      await options.cleanup?.(coord);
    });

    async function newInstance() {
      const rec = await coord.instances.create({ graphName: "g", nodeIdMap: { a: nodeIdOf("a"), b: nodeIdOf("b") }, input: payload("in") });
      await options.registerInstance?.(coord, rec.instanceId);
      return rec.instanceId;
    }
    const open = (node: string, instance = instanceId) =>
      Promise.resolve(coord.openInvocation({ instanceId: instance, nodeId: nodeIdOf(node), nodeName: node }));
    const outbox = (inv: NodeInvocation, ...targets: string[]) =>
      targets.map((target) =>
        deliverRow({ instanceId: inv.instanceId, source: inv.nodeName, target, sourceInvocationId: inv.invocationId, content: `${inv.nodeName}→${target}` }),
      );
    const external = (target: string, content: unknown = "ext") =>
      coord.delivers.appendPending(deliverRow({ instanceId, target, source: "__external__", sourceInvocationId: null, content }));
    const ledger = async (instance = instanceId) =>
      (await coord.delivers.listByInstance(instance)).map((r) => [r.targetNode, r.status, r.content]);
    const status = async (inv: NodeInvocation) => (await coord.nodes.get(inv.invocationId))!.status;
    const recover = async (instance = instanceId) => {
      coord = options.restart ? await options.restart(coord) : coord;
      return coord.recover(instance);
    };

    describe("lifecycle", () => {
      it("openInvocation begins a RUNNING invocation with no inputs when nothing was delivered", async () => {
        const { invocation, inputs } = await open("a");
        expect(invocation).toMatchObject({ instanceId, nodeId: nodeIdOf("a"), nodeName: "a", version: 1, status: "RUNNING" });
        expect(inputs).toEqual([]);
      });

      it("openInvocation claims the node's consumable rows for the new invocation", async () => {
        const first = await external("a", 1);
        const second = await external("a", 2);
        await external("b", 3);
        const { invocation, inputs } = await open("a");
        expect(ids(inputs)).toEqual([first.deliverId, second.deliverId]);
        expect(inputs.map((r) => r.content)).toEqual([1, 2]);
        const claimed = await coord.delivers.consumable(instanceId, nodeIdOf("a"));
        expect(claimed.map((r) => [r.status, r.consumedByInvocationId])).toEqual([
          ["CONSUMED_PENDING", invocation.invocationId],
          ["CONSUMED_PENDING", invocation.invocationId],
        ]);
        expect((await coord.delivers.consumable(instanceId, nodeIdOf("b")))[0].status).toBe("PENDING");
      });

      it("completeInvocation completes, then promotes the outbox and returns it", async () => {
        const { invocation } = await open("a");
        const rows = outbox(invocation, "b", "b");
        const promoted = await coord.completeInvocation(invocation, rows);
        expect(ids(promoted)).toEqual(ids(rows));
        expect(promoted.map((r) => [r.status, r.sourceInvocationId])).toEqual([
          ["PENDING", invocation.invocationId],
          ["PENDING", invocation.invocationId],
        ]);
        expect(await status(invocation)).toBe("COMPLETED");
        expect(ids(await coord.delivers.consumable(instanceId, nodeIdOf("b")))).toEqual(ids(rows));
      });

      it("completeInvocation with an empty outbox completes and returns nothing", async () => {
        const { invocation } = await open("a");
        expect(await coord.completeInvocation(invocation, [])).toEqual([]);
        expect(await status(invocation)).toBe("COMPLETED");
      });

      it("a completion that lost the race raises InvocationStateError and leaves its outbox invisible", async () => {
        const { invocation } = await open("a");
        await coord.cancelInvocation(invocation, "drain");
        expect(isInvocationStateError(await caught(() => coord.completeInvocation(invocation, outbox(invocation, "b"))))).toBe(true);
        expect(await coord.delivers.consumable(instanceId, nodeIdOf("b"))).toEqual([]);
        expect(await status(invocation)).toBe("CANCELLED");
      });

      it("promoteConsumed makes the inputs terminal, so the next invocation does not see them", async () => {
        await external("a");
        const { invocation } = await open("a");
        await coord.completeInvocation(invocation, []);
        await coord.promoteConsumed(invocation);
        expect(await ledger()).toEqual([["a", "CONSUMED_COMPLETED", "ext"]]);
        expect((await open("a")).inputs).toEqual([]);
      });

      it("runs a → b end to end through the ledger", async () => {
        await external("a", "start");
        const a = await open("a");
        await coord.completeInvocation(a.invocation, outbox(a.invocation, "b"));
        await coord.promoteConsumed(a.invocation);
        const b = await open("b");
        expect(b.inputs.map((r) => [r.sourceNode, r.content])).toEqual([["a", "a→b"]]);
        await coord.completeInvocation(b.invocation, []);
        await coord.promoteConsumed(b.invocation);
        expect(await ledger()).toEqual([
          ["a", "CONSUMED_COMPLETED", "start"],
          ["b", "CONSUMED_COMPLETED", "a→b"],
        ]);
        expect(await coord.recover(instanceId)).toEqual({ orphanedNodeIds: [], pendingNodeIds: [] });
      });

      it("cancelInvocation leaves the inputs CONSUMED_PENDING and re-offers them to the next invocation", async () => {
        const old = await external("a", "old");
        const first = await open("a");
        await coord.cancelInvocation(first.invocation, "interrupt");
        expect(await status(first.invocation)).toBe("CANCELLED");
        const fresh = await external("a", "new");
        const retry = await open("a");
        expect(retry.invocation).toMatchObject({ version: 2, parentVersion: null });
        expect(ids(retry.inputs)).toEqual([old.deliverId, fresh.deliverId]);
        expect(retry.inputs.map((r) => r.status)).toEqual(["CONSUMED_PENDING", "PENDING"]);
        const rows = await coord.delivers.listByInstance(instanceId);
        expect(rows.map((r) => r.consumedByInvocationId)).toEqual([retry.invocation.invocationId, retry.invocation.invocationId]);
      });

      it("failInvocation ends the invocation FAILED with the error", async () => {
        const { invocation } = await open("a");
        await coord.failInvocation(invocation, "boom");
        expect(await coord.nodes.get(invocation.invocationId)).toMatchObject({ status: "FAILED", error: "boom" });
      });

      it("checkpointState persists the shared state to the instance store", async () => {
        await coord.checkpointState(instanceId, { count: 3 });
        expect(await coord.instances.loadState(instanceId)).toEqual({ count: 3 });
      });
    });

    describe("recover", () => {
      it("reports nothing for a clean instance", async () => {
        expect(await recover()).toEqual({ orphanedNodeIds: [], pendingNodeIds: [] });
      });

      it("closes the source window: a COMPLETED source's STAGED rows become PENDING", async () => {
        const { invocation } = await open("a");
        const rows = outbox(invocation, "b");
        await coord.delivers.stage(rows); // crash after complete, before promote:
        await coord.nodes.complete(invocation.invocationId);
        const scan = await recover();
        expect(await ledger()).toEqual([["b", "PENDING", "a→b"]]);
        expect(scan).toEqual({ orphanedNodeIds: [], pendingNodeIds: [nodeIdOf("b")] });
        expect(ids((await open("b")).inputs)).toEqual(ids(rows));
      });

      it("closes the consumer window: a COMPLETED consumer's claimed rows become CONSUMED_COMPLETED", async () => {
        await external("a");
        const { invocation } = await open("a");
        await coord.completeInvocation(invocation, []); // crash before promoteConsumed
        const scan = await recover();
        expect(await ledger()).toEqual([["a", "CONSUMED_COMPLETED", "ext"]]);
        expect(scan).toEqual({ orphanedNodeIds: [], pendingNodeIds: [] });
      });

      it("closes both windows of one invocation at once", async () => {
        await external("a");
        const { invocation } = await open("a");
        await coord.delivers.stage(outbox(invocation, "b"));
        await coord.nodes.complete(invocation.invocationId);
        const scan = await recover();
        expect(await ledger()).toEqual([
          ["a", "CONSUMED_COMPLETED", "ext"],
          ["b", "PENDING", "a→b"],
        ]);
        expect(scan.pendingNodeIds).toEqual([nodeIdOf("b")]);
      });

      it("marks orphaned RUNNING invocations CRASHED, drops their staged rows, re-offers their inputs", async () => {
        await external("a", "input");
        const { invocation } = await open("a");
        await coord.delivers.stage(outbox(invocation, "b")); // crash during execute
        const scan = await recover();
        expect(await status(invocation)).toBe("CRASHED");
        expect(await ledger()).toEqual([["a", "CONSUMED_PENDING", "input"]]);
        expect(scan).toEqual({ orphanedNodeIds: [nodeIdOf("a")], pendingNodeIds: [nodeIdOf("a")] });
        const retry = await open("a");
        expect(retry.invocation.version).toBe(2);
        expect(retry.inputs.map((r) => r.content)).toEqual(["input"]);
      });

      it.each(["cancelled", "failed"] as const)("drops the STAGED rows of a %s source", async (end) => {
        const { invocation } = await open("a");
        await coord.delivers.stage(outbox(invocation, "b"));
        if (end === "cancelled") await coord.cancelInvocation(invocation, "interrupt");
        else await coord.failInvocation(invocation, "boom");
        expect(await recover()).toEqual({ orphanedNodeIds: [], pendingNodeIds: [] });
        expect(await ledger()).toEqual([]);
      });

      it("keeps a cancelled consumer's inputs CONSUMED_PENDING and reports their node", async () => {
        await external("b", "x");
        const { invocation } = await open("b");
        await coord.cancelInvocation(invocation, "interrupt");
        expect(await recover()).toEqual({ orphanedNodeIds: [], pendingNodeIds: [nodeIdOf("b")] });
        expect(await ledger()).toEqual([["b", "CONSUMED_PENDING", "x"]]);
      });

      it("reports each node once, with several orphans and several pending rows", async () => {
        await external("b", 1);
        await external("b", 2);
        await open("a");
        await coord.nodes.begin({ instanceId, nodeId: nodeIdOf("a"), nodeName: "a" });
        const scan = await recover();
        expect(scan.orphanedNodeIds).toEqual([nodeIdOf("a")]);
        expect(scan.pendingNodeIds).toEqual([nodeIdOf("b")]);
        expect((await coord.nodes.listByInstance(instanceId)).map((r) => r.status)).toEqual(["CRASHED", "CRASHED"]);
      });

      it("is idempotent: a second recover changes nothing and finds no new orphans", async () => {
        await external("a");
        const a = await open("a");
        await coord.delivers.stage(outbox(a.invocation, "b"));
        await coord.nodes.complete(a.invocation.invocationId);
        await open("b");
        const first = await recover();
        const after = await ledger();
        const second = await recover();
        expect(await ledger()).toEqual(after);
        expect(first.orphanedNodeIds).toEqual([nodeIdOf("b")]);
        expect(second).toEqual({ orphanedNodeIds: [], pendingNodeIds: first.pendingNodeIds });
      });

      it("touches only the recovered instance", async () => {
        const other = await newInstance();
        const running = await open("a", other);
        await coord.delivers.stage(outbox(running.invocation, "b"));
        const staged = await coord.delivers.listByInstance(other);
        await recover(instanceId);
        expect(await status(running.invocation)).toBe("RUNNING");
        expect(await coord.delivers.listByInstance(other)).toEqual(staged);
      });

      it("leaves the ledger ready for the run to resume through openInvocation", async () => {
        // a completed and promoted to b; b crashed mid-run after claiming; c received an external deliver.
        const a = await open("a");
        await coord.completeInvocation(a.invocation, outbox(a.invocation, "b"));
        await coord.promoteConsumed(a.invocation);
        const b = await open("b");
        await external("c", "poke");
        const scan = await recover();
        expect(scan.orphanedNodeIds).toEqual([nodeIdOf("b")]);
        expect([...scan.pendingNodeIds].sort()).toEqual([nodeIdOf("b"), nodeIdOf("c")]);
        const retry = await open("b");
        expect(retry.inputs.map((r: DeliverRow) => [r.content, r.status])).toEqual([["a→b", "CONSUMED_PENDING"]]);
        expect(await status(b.invocation)).toBe("CRASHED");
      });
    });
  });
}
