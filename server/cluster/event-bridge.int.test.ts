import { afterEach, describe, expect, it } from "vitest";
import type { StoredEvent } from "@/server/services/event-log";
import { EventBus } from "@/server/services/event-bus";
import { ClusterWorker } from "./cluster-worker";
import { bridgeClusterEvents } from "./event-bridge";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph, testGraphCatalog } from "./testing/cluster-graphs";

describe("a web process's event bus on PostgreSQL", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  it("a viewer on the web process sees every event of a run a worker executes, in order, once", async () => {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    const bus = new EventBus();
    const listener = await bridgeClusterEvents(fx.url, bus);
    cleanup.push(() => listener.close());
    const seen: StoredEvent[] = [];
    bus.subscribe("v1", (e) => seen.push(e));
    const worker = await ClusterWorker.start({ url: fx.url, graphs: testGraphCatalog, leaseMs: 1500 });
    cleanup.push(() => worker.stop(1000));
    await fx.control.create({ graph: chainGraph(25, 5), input: "v", instanceId: "v1" });
    await fx.until(async () => (await fx.countStatus("completed")) === 1, 15_000, "completed");
    await fx.until(async () => seen.at(-1)?.event.type === "run_finished", 5_000, "the last event");
    const stored = await fx.query<{ id: string; type: string }>("SELECT id, type FROM engine_events WHERE instance_id = 'v1' ORDER BY id");
    expect(seen.map((e) => [e.id, e.event.type])).toEqual(stored.map((r) => [Number(r.id), r.type]));
    expect(seen.every((e) => e.instanceId === "v1" && e.version === 1 && e.at > 0)).toBe(true);
  }, 60_000);
});
