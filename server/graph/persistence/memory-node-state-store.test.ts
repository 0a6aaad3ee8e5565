import { afterEach, describe, expect, it, vi } from "vitest";
import { isInvocationStateError } from "../errors";
import { newId, nodeIdOf } from "./conformance/harness";
import { InMemoryNodeStateStore } from "./memory-node-state-store";
import type { BeginInvocationArgs, NodePlace } from "./node-state-store";

/** When set, what `newSnowflake` answers instead of a snowflake. */
const snowflakes = vi.hoisted(() => ({ next: null as (() => string) | null }));
vi.mock("../ids", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../ids")>();
  return { ...actual, newSnowflake: () => snowflakes.next?.() ?? actual.newSnowflake() };
});

/**
 * What the in-memory node-state store does beyond the conformance suite: it keeps invocations as
 * columns, finds one by id without an index (ids increase, so it searches), addresses a node's
 * version chain by its position when the engine gives one, and keeps every field across the chunk
 * its numeric fields move into past 1,024 invocations.
 */
describe("InMemoryNodeStateStore", () => {
  afterEach(() => {
    snowflakes.next = null;
  });

  /** A graph of nodes a, b, c as the engine describes it to `begin`. */
  const graph = (names = ["a", "b", "c"]) => {
    const nodeIds = names.map(nodeIdOf);
    const positions = new Map(nodeIds.map((id, k) => [id, k]));
    return (name: string): NodePlace => ({ index: positions.get(nodeIdOf(name))!, positions, nodeIds });
  };
  const args = (instanceId: string, name: string, binding?: NodePlace): BeginInvocationArgs => ({
    instanceId,
    nodeId: nodeIdOf(name),
    nodeName: name,
    binding,
  });

  it("finds and transitions invocations that are not among the last begun", () => {
    const store = new InMemoryNodeStateStore();
    const [i1, i2] = [newId("gi"), newId("gi")];
    const begun = Array.from({ length: 40 }, (_, k) => store.begin(args(k % 2 ? i1 : i2, `n${k % 5}`)));
    expect(store.complete(begun[3].invocationId)).toMatchObject({ invocationId: begun[3].invocationId, status: "COMPLETED" });
    expect(store.fail(begun[0].invocationId, "boom")).toMatchObject({ status: "FAILED", error: "boom" });
    for (const inv of begun) {
      const found = store.get(inv.invocationId)!;
      expect(found).toMatchObject({ ...inv, status: found.status, endedAt: found.endedAt, error: found.error });
    }
    expect(store.get(`${begun[5].invocationId}0`)).toBeNull();
    expect(store.get("not-a-snowflake")).toBeNull();
    expect(isInvocationStateError(caughtSync(() => store.complete(begun[3].invocationId)))).toBe(true);
  });

  it("still finds every invocation if ids ever stop increasing", () => {
    const store = new InMemoryNodeStateStore();
    const instanceId = newId("gi");
    let next = 900;
    snowflakes.next = () => String((next -= 7));
    const begun = Array.from({ length: 12 }, (_, k) => store.begin(args(instanceId, `n${k % 3}`)));
    expect(begun.slice(0, 2).map((r) => r.invocationId)).toEqual(["893", "886"]);
    for (const inv of begun) expect(store.get(inv.invocationId)).toEqual(inv);
    expect(store.complete(begun[0].invocationId).status).toBe("COMPLETED");
    expect(store.get(begun[0].invocationId)!.status).toBe("COMPLETED");
  });

  it("keeps one version chain per node whether or not begin says where the node sits", () => {
    const store = new InMemoryNodeStateStore();
    const instanceId = newId("gi");
    const at = graph();
    const v1 = store.begin(args(instanceId, "b", at("b")));
    store.complete(v1.invocationId);
    const v2 = store.begin(args(instanceId, "b"));
    store.fail(v2.invocationId, "boom");
    const v3 = store.begin(args(instanceId, "b", at("b")));
    expect([v1, v2, v3].map((r) => [r.version, r.parentVersion])).toEqual([
      [1, null],
      [2, 1],
      [3, 1],
    ]);
    expect(store.history(instanceId, nodeIdOf("b")).map((r) => r.invocationId)).toEqual([v1, v2, v3].map((r) => r.invocationId));
    expect(store.begin(args(instanceId, "a", at("a"))).version).toBe(1);
  });

  it("keeps chains of nodes outside the instance's graph, and of another graph's places, by node id", () => {
    const store = new InMemoryNodeStateStore();
    const instanceId = newId("gi");
    const first = graph();
    const other = graph(["x", "b"]);
    store.complete(store.begin(args(instanceId, "a", first("a"))).invocationId);
    store.complete(store.begin(args(instanceId, "x", other("x"))).invocationId);
    expect(store.begin(args(instanceId, "x", other("x")))).toMatchObject({ version: 2, parentVersion: 1 });
    // Another graph's place for a node of the first one: the chain is the node's, wherever it is said to sit.
    expect(store.begin(args(instanceId, "b", other("b"))).version).toBe(1);
    expect(store.begin(args(instanceId, "b", first("b"))).version).toBe(2);
    expect(store.begin(args(instanceId, "zzz")).version).toBe(1);
    expect(store.history(instanceId, nodeIdOf("x")).map((r) => r.version)).toEqual([1, 2]);
    expect(store.listByInstance(instanceId).map((r) => r.nodeName)).toEqual(["a", "x", "x", "b", "b", "zzz"]);
  });

  it("ignores a place that does not name the node begun", () => {
    const store = new InMemoryNodeStateStore();
    const instanceId = newId("gi");
    const at = graph();
    store.complete(store.begin(args(instanceId, "a", at("a"))).invocationId);
    const misplaced = store.begin({ ...args(instanceId, "c"), binding: at("a") });
    expect(misplaced).toMatchObject({ nodeId: nodeIdOf("c"), version: 1, parentVersion: null });
    expect(store.begin(args(instanceId, "a", at("a"))).version).toBe(2);
  });

  it("keeps each name a node id was begun with", () => {
    const store = new InMemoryNodeStateStore();
    const instanceId = newId("gi");
    store.begin({ instanceId, nodeId: "node_same", nodeName: "old" });
    store.begin({ instanceId, nodeId: "node_same", nodeName: "new" });
    store.begin({ instanceId, nodeId: "node_same", nodeName: "old" });
    expect(store.history(instanceId, "node_same").map((r) => [r.version, r.nodeName])).toEqual([
      [1, "old"],
      [2, "new"],
      [3, "old"],
    ]);
  });

  it("hands out snapshots: records read earlier keep what they said", () => {
    const store = new InMemoryNodeStateStore();
    const instanceId = newId("gi");
    const inv = store.begin(args(instanceId, "a"));
    const [listed] = store.listByInstance(instanceId);
    const got = store.get(inv.invocationId)!;
    const [running] = store.listRunning(instanceId);
    store.cancel(inv.invocationId, "interrupted");
    for (const r of [listed, got, running]) expect(r).toMatchObject({ status: "RUNNING", endedAt: null, error: null });
    expect(store.get(inv.invocationId)).toMatchObject({ status: "CANCELLED", error: "interrupted" });
  });

  it("keeps every field of invocations past the first chunk, in every listing", () => {
    const store = new InMemoryNodeStateStore();
    const [i1, i2] = [newId("gi"), newId("gi")];
    const at = graph();
    const begun = [];
    for (let k = 0; k < 5000; k++) {
      const name = ["a", "b", "c"][k % 3];
      const inv = store.begin(args(k % 2 ? i1 : i2, name, k % 4 ? at(name) : undefined));
      begun.push(inv);
      if (k % 7 === 0) store.fail(inv.invocationId, `boom ${k}`);
      else if (k % 11 !== 0) store.complete(inv.invocationId);
    }
    const now = begun.map((r) => store.get(r.invocationId)!);
    expect(now.map((r) => r.invocationId)).toEqual(begun.map((r) => r.invocationId));
    expect(now.map((r) => r.startedAt)).toEqual(begun.map((r) => r.startedAt));
    expect(now[4900]).toMatchObject({ nodeName: ["a", "b", "c"][4900 % 3], error: "boom 4900", status: "FAILED" });
    expect(now.filter((r) => r.status === "RUNNING")).toHaveLength(begun.filter((_, k) => k % 7 !== 0 && k % 11 === 0).length);
    expect(store.listByInstance(i1)).toEqual(now.filter((r) => r.instanceId === i1));
    expect(store.listRunning(i2)).toEqual(now.filter((r) => r.instanceId === i2 && r.status === "RUNNING"));
    const history = store.history(i1, nodeIdOf("b"));
    expect(history).toEqual(now.filter((r) => r.instanceId === i1 && r.nodeName === "b"));
    expect(history.map((r) => r.version)).toEqual(history.map((_, k) => k + 1));
    for (let k = 1; k < history.length; k++) {
      const completed = history.slice(0, k).filter((r) => r.status === "COMPLETED");
      expect(history[k].parentVersion).toBe(completed.length ? completed[completed.length - 1].version : null);
    }
  });
});

function caughtSync(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e;
  }
}
