import { expect, it } from "vitest";
import { EventBus } from "@/server/services/event-bus";
import type { StoredEvent } from "@/server/services/event-log";
import { RunStartSignal } from "./run-start-signal";

const event = (instanceId: string, type: "run_started" | "node_started"): StoredEvent =>
  ({ id: 1, instanceId, version: 1, at: 0, event: { type, instanceId } }) as unknown as StoredEvent;

it("wakes a wait at the instance's run_started, keeps one that came between waits, and ignores other events and instances", async () => {
  const bus = new EventBus();
  using signal = new RunStartSignal(bus, "i1");
  const time = async (ms: number) => {
    const began = Date.now();
    await signal.next(ms);
    return Date.now() - began;
  };
  setTimeout(() => bus.publish(event("i1", "run_started")), 20);
  expect(await time(5_000)).toBeLessThan(2_000);
  bus.publish(event("i1", "run_started")); // while nobody waits: latched
  expect(await time(5_000)).toBeLessThan(500);
  bus.publish(event("i1", "node_started"));
  bus.publish(event("i2", "run_started"));
  expect(await time(100)).toBeGreaterThanOrEqual(90);
});

it("unsubscribes when disposed", () => {
  const bus = new EventBus();
  new RunStartSignal(bus, "i1")[Symbol.dispose]();
  expect(bus.listenerCount("i1")).toBe(0);
});
