import { describe, expect, it } from "vitest";
import type { StoredEventDto } from "@/components/api/contract";
import type { EngineEvent } from "@/server/graph/events";
import { applyRunEvent, emptyRunState, runStateDto } from "@/server/services/run-state";
import { applyEvent, copyRunModel, foldEvents, runModelOf } from "./run-model";

/**
 * The browser applies live events on top of the server's fold (instances.timeline), so the two folds
 * must agree event by event: one log covering every event type, compared after each prefix.
 */
const log: EngineEvent[] = [
  { type: "instance_status", instanceId: "i", version: 1, from: null, to: "running" },
  { type: "run_started", instanceId: "i", version: 1, mode: "fresh", seeds: ["a"] },
  { type: "node_started", instanceId: "i", node: "a", nodeInstance: "a#1" } as never,
  { type: "deliver_staged", instanceId: "i", source: "a", target: "b", deliverId: "d1" } as never,
  { type: "node_completed", instanceId: "i", node: "a", nodeInstance: "a#1", durationMs: 3, delivered: 1 } as never,
  { type: "deliver_promoted", instanceId: "i", source: "a", target: "b", deliverId: "d1", payload: "x" } as never,
  { type: "deliver_consumed", instanceId: "i", source: "a", target: "b", deliverId: "d1" } as never,
  { type: "node_started", instanceId: "i", node: "b", nodeInstance: "b#1" } as never,
  { type: "node_failed", instanceId: "i", node: "b", nodeInstance: "b#1", error: "boom" } as never,
  { type: "node_cancelled", instanceId: "i", node: "c", nodeInstance: "c#1", reason: "stop" } as never,
  { type: "interrupt_raised", instanceId: "i", node: "gate", value: { prompt: "?" } },
  { type: "instance_status", instanceId: "i", version: 1, from: "running", to: "paused" },
  { type: "instance_status", instanceId: "i", version: 1, from: "paused", to: "running" },
  { type: "drained", instanceId: "i", reason: "pause", finishing: ["b"] },
  { type: "run_finished", instanceId: "i", version: 1, reachedEnd: true, iterations: 4 },
  { type: "instance_status", instanceId: "i", version: 1, from: "running", to: "completed" },
  { type: "run_started", instanceId: "i", version: 2, mode: "recovery", seeds: [] },
  { type: "node_completed", instanceId: "i", node: "a", nodeInstance: "a#2", durationMs: 1, delivered: 0 } as never,
  { type: "run_started", instanceId: "i", version: 2, mode: "fresh", seeds: ["a"] },
];
const stored = log.map((event, i) => ({ id: i + 1, instanceId: "i", version: 1, at: 1_000 + i, event })) as StoredEventDto[];

describe("run-model and the server's run-state", () => {
  it("fold every prefix of a log to the same model", () => {
    const server = emptyRunState();
    for (let n = 0; n <= stored.length; n++) {
      if (n > 0) applyRunEvent(server, log[n - 1]);
      expect(runModelOf(runStateDto(server))).toEqual(foldEvents(stored, n));
    }
  });

  it("continue from the server's summary with live events as if the browser had folded it all", () => {
    for (let cut = 0; cut <= stored.length; cut++) {
      const server = emptyRunState();
      for (const e of log.slice(0, cut)) applyRunEvent(server, e);
      const m = runModelOf(runStateDto(server));
      for (const e of stored.slice(cut)) applyEvent(m, e);
      expect(copyRunModel(m)).toEqual(foldEvents(stored));
    }
  });
});
