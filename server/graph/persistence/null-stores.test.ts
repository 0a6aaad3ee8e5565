import { describe, expect, it } from "vitest";
import { createNullCoordinator } from "./factories";
import { caught, deliverRow, newId, nodeIdOf, payload } from "./conformance/harness";
import type { NodeInvocation } from "./records";

/** The Null coordinator persists nothing, yet delivers still flow through its transient mailbox. */
describe("Null coordinator", () => {
  const setup = async () => {
    const coord = createNullCoordinator();
    const instanceId = (await coord.instances.create({ graphName: "g", nodeIdMap: {}, input: payload("in") })).instanceId;
    const open = (node: string) =>
      Promise.resolve(coord.openInvocation({ instanceId, nodeId: nodeIdOf(node), nodeName: node }));
    const send = (from: NodeInvocation, target: string, content: unknown) =>
      deliverRow({ instanceId, source: from.nodeName, target, sourceInvocationId: from.invocationId, content });
    return { coord, instanceId, open, send };
  };

  it("carries a deliver from one node to the next", async () => {
    const { coord, open, send } = await setup();
    const a = await open("a");
    const promoted = await coord.completeInvocation(a.invocation, [send(a.invocation, "b", { text: "hi" })]);
    expect(promoted.map((r) => [r.targetNode, r.status])).toEqual([["b", "PENDING"]]);
    const b = await open("b");
    expect(b.inputs.map((r) => r.content)).toEqual([{ text: "hi" }]);
  });

  it("forgets rows once their consumer completes, keeping the ones still waiting", async () => {
    const { coord, instanceId, open, send } = await setup();
    const a = await open("a");
    await coord.completeInvocation(a.invocation, [send(a.invocation, "b", 1), send(a.invocation, "c", 2)]);
    const b = await open("b");
    await coord.completeInvocation(b.invocation, []);
    await coord.promoteConsumed(b.invocation);
    expect(await coord.delivers.consumable(instanceId, nodeIdOf("b"))).toEqual([]);
    expect((await coord.delivers.listByInstance(instanceId)).map((r) => [r.targetNode, r.content])).toEqual([["c", 2]]);
    expect(await coord.delivers.listByStatus(instanceId, ["PENDING", "CONSUMED_COMPLETED"])).toHaveLength(1);
  });

  it("re-offers a cancelled invocation's inputs to the retry", async () => {
    const { coord, open, send } = await setup();
    const a = await open("a");
    await coord.completeInvocation(a.invocation, [send(a.invocation, "b", "again")]);
    const first = await open("b");
    await coord.cancelInvocation(first.invocation, "interrupt");
    const retry = await open("b");
    expect(retry.inputs.map((r) => [r.content, r.status])).toEqual([["again", "CONSUMED_PENDING"]]);
  });

  it("answers an open with a RUNNING invocation record of what opened it", async () => {
    const { coord, instanceId, open } = await setup();
    const { invocation } = await open("a");
    expect(pick(invocation)).toEqual({
      instanceId, nodeId: nodeIdOf("a"), nodeName: "a", version: 1, parentVersion: null,
      status: "RUNNING", startedAt: 0, endedAt: null, error: null,
    });
    expect(invocation.invocationId).toMatch(/^null_\d+$/);
    expect((await open("a")).invocation.invocationId).not.toBe(invocation.invocationId);
  });

  it("keeps no instance or invocation state, and never raises state errors", async () => {
    const { coord, instanceId, open } = await setup();
    const { invocation } = await open("a");
    expect(await caught(() => coord.nodes.complete(invocation.invocationId))).toBeUndefined();
    expect(await caught(() => coord.nodes.complete(invocation.invocationId))).toBeUndefined();
    expect(await coord.nodes.get(invocation.invocationId)).toBeNull();
    await coord.checkpointState(instanceId, { count: 1 });
    expect(await coord.instances.load(instanceId)).toBeNull();
    expect(await coord.instances.loadState(instanceId)).toBeNull();
    expect(await coord.recover(newId("gi"))).toEqual({ orphanedNodeIds: [], pendingNodeIds: [] });
  });
});

const pick = (i: NodeInvocation) => ({
  instanceId: i.instanceId, nodeId: i.nodeId, nodeName: i.nodeName, version: i.version, parentVersion: i.parentVersion,
  status: i.status, startedAt: i.startedAt, endedAt: i.endedAt, error: i.error,
});
