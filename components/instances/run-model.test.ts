import { describe, expect, it } from "vitest";
import type { StoredEventDto } from "@/components/api/contract";
import type { EngineEvent } from "@/server/graph/events";
import { applyRunEvent, copyRunState, emptyRunState, runStateDto, runStateOf } from "@/shared/run-state";
import { applyEvent, describeEvent, foldEvents } from "./run-model";

/**
 * The browser applies live events on top of the server's fold (instances.timeline), so the summary it
 * receives (a RunStateDto) and its fold of stored events must agree with the server's fold event by
 * event: one log covering every event type, compared after each prefix.
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
  { type: "run_finished", instanceId: "i", version: 2, reachedEnd: false, iterations: 1 },
  { type: "run_started", instanceId: "i", version: 2, mode: "fresh", seeds: ["a"] },
  { type: "node_completed", instanceId: "i", node: "a", nodeInstance: "a#3", durationMs: 1, delivered: 0 } as never,
  // A subgraph node: its inner run's events come between its own started and completed.
  { type: "node_started", instanceId: "i", node: "sub", nodeInstance: "sub#1" } as never,
  { type: "run_started", instanceId: "i", version: 2, mode: "fresh", seeds: ["__start__"] },
  { type: "node_started", instanceId: "i", node: "__start__", nodeInstance: "__start__#0" } as never,
  { type: "deliver_promoted", instanceId: "i", source: "__start__", target: "x", deliverId: "d2", payload: "y" } as never,
  { type: "node_completed", instanceId: "i", node: "__start__", nodeInstance: "__start__#0", durationMs: 1, delivered: 1 } as never,
  { type: "node_failed", instanceId: "i", node: "x", nodeInstance: "x#0", error: "inner boom" } as never,
  { type: "run_finished", instanceId: "i", version: 2, reachedEnd: true, iterations: 2 },
  { type: "node_completed", instanceId: "i", node: "sub", nodeInstance: "sub#1", durationMs: 4, delivered: 1 } as never,
  { type: "instance_status", instanceId: "i", version: 2, from: "running", to: "failed" },
];
const stored = log.map((event, i) => ({ id: i + 1, instanceId: "i", version: 1, at: 1_000 + i, event })) as StoredEventDto[];

describe("run-model over stored events and the server's run-state", () => {
  it("fold every prefix of a log to the same model", () => {
    const server = emptyRunState();
    for (let n = 0; n <= stored.length; n++) {
      if (n > 0) applyRunEvent(server, log[n - 1], stored[n - 1].at);
      expect(runStateOf(runStateDto(server))).toEqual(foldEvents(stored, n));
    }
  });

  it("continue from the server's summary with live events as if the browser had folded it all", () => {
    for (let cut = 0; cut <= stored.length; cut++) {
      const server = emptyRunState();
      for (const e of stored.slice(0, cut)) applyRunEvent(server, e.event as EngineEvent, e.at);
      const m = runStateOf(runStateDto(server));
      for (const e of stored.slice(cut)) applyEvent(m, e);
      expect(copyRunState(m)).toEqual(foldEvents(stored));
    }
  });

  it("keep a subgraph's inner events under its node's name, and the outer graph's states intact", () => {
    const m = foldEvents(stored);
    expect(m.states.get("sub")).toBe("completed");
    expect(m.states.get("sub/__start__")).toBe("completed");
    expect(m.states.get("sub/x")).toBe("failed");
    expect(m.states.get("a")).toBe("completed"); // the inner run_started did not wipe the outer picture
    expect(m.states.has("x")).toBe(false);
    expect(m.usedEdges.has("sub/__start__->sub/x")).toBe(true);
    expect(m.failure).toEqual({ node: "sub/x", error: "inner boom" });
    expect(m.depth).toBe(0);
    expect(m.startedAt).toBe(stored[0].at);
    expect(m.endedAt).toBe(stored.at(-1)!.at);
    const scopes = (() => {
      const f = foldEvents([]);
      return stored.map((e) => applyEvent(f, e));
    })();
    const inner = scopes.map((s, i) => (s ? i : -1)).filter((i) => i >= 0);
    expect(inner.map((i) => stored[i].event.type)).toEqual(["run_started", "node_started", "deliver_promoted", "node_completed", "node_failed", "run_finished"]);
    expect(new Set(inner.map((i) => scopes[i]))).toEqual(new Set(["sub"]));
  });
});

describe("describeEvent", () => {
  const stored = (event: unknown) => ({ id: 1, instanceId: "i", version: 1, at: 0, event }) as unknown as StoredEventDto;

  it("reads an interrupt's cancelled invocation as suspended, waiting for an answer; other cancels as cancelled", () => {
    expect(describeEvent(stored({ type: "node_cancelled", instanceId: "i", node: "approve", nodeInstance: "approve#0", reason: "interrupt" }))).toEqual({
      title: "suspended",
      detail: "approve#0: waits for an answer",
      nodes: ["approve"],
    });
    expect(describeEvent(stored({ type: "node_cancelled", instanceId: "i", node: "c", nodeInstance: "c#1", reason: "stop" }))).toMatchObject({
      title: "cancelled",
      detail: "c#1: stop",
    });
  });

  it("reads a resume's deliver as the answer (or the agent decision) it carried, not as the engine's marker", () => {
    const resume = (value: unknown) => stored({ type: "deliver_promoted", instanceId: "i", deliverId: "d", source: "__start__", target: "approve", payload: { __resume__: true, value } });
    expect(describeEvent(resume("yes"))).toEqual({ title: "answered", detail: "approve: yes", nodes: ["approve"] });
    expect(describeEvent(resume({ transactionId: "t", approved: true }))).toEqual({ title: "decided", detail: "approve: approved", nodes: ["approve"] });
    expect(describeEvent(stored({ type: "deliver_promoted", instanceId: "i", deliverId: "d", source: "draft", target: "approve", payload: "v1" }))).toMatchObject({ title: "deliver" });
  });

  it("says a run that goes on from its ledger (after an answer, a resume or a crash) picks up where it stopped, not the engine's 'recovery'", () => {
    const started = (mode: "fresh" | "recovery", seeds: string[]) => describeEvent(stored({ type: "run_started", instanceId: "i", version: 1, mode, seeds }));
    expect(started("recovery", ["__start__", "approve"])).toEqual({ title: "run started", detail: "picks up where it stopped · ready: __start__, approve", nodes: ["__start__", "approve"] });
    expect(started("fresh", ["__start__"])).toEqual({ title: "run started", detail: "from the start · ready: __start__", nodes: ["__start__"] });
    expect(started("recovery", []).detail).toBe("picks up where it stopped");
  });
});

describe("a run that failed outside any node", () => {
  it("takes its failure from the failed status event, with no node", () => {
    const m = emptyRunState();
    applyRunEvent(m, { type: "instance_status", instanceId: "i", version: 1, from: null, to: "running" }, 1);
    applyRunEvent(m, { type: "instance_status", instanceId: "i", version: 1, from: "running", to: "failed", error: "graph exceeded maxIterations (50 node executions)" }, 2);
    expect(m.failure).toEqual({ node: null, error: "graph exceeded maxIterations (50 node executions)" });
  });
});

describe("a run that crashed", () => {
  it("shows the nodes it was running as interrupted, and running again once a recovery starts them", () => {
    const m = emptyRunState();
    applyRunEvent(m, { type: "instance_status", instanceId: "i", version: 1, from: null, to: "running" }, 1);
    applyRunEvent(m, { type: "node_started", instanceId: "i", node: "a", nodeInstance: "a#1" } as never, 2);
    applyRunEvent(m, { type: "node_started", instanceId: "i", node: "b", nodeInstance: "b#1" } as never, 3);
    applyRunEvent(m, { type: "node_completed", instanceId: "i", node: "b", nodeInstance: "b#1", durationMs: 1, delivered: 0 } as never, 4);
    applyRunEvent(m, { type: "instance_status", instanceId: "i", version: 1, from: "running", to: "crashed" }, 5);
    expect(Object.fromEntries(m.states)).toEqual({ a: "interrupted", b: "completed" });
    applyRunEvent(m, { type: "run_started", instanceId: "i", version: 1, mode: "recovery", seeds: ["a"] }, 6);
    applyRunEvent(m, { type: "node_started", instanceId: "i", node: "a", nodeInstance: "a#2" } as never, 7);
    expect(m.states.get("a")).toBe("running");
  });
});
