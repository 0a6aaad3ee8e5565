import { describe, expect, it } from "vitest";
import type { StoredEvent } from "./event-log";
import { applyRunEvent, emptyRunState, runStateDto } from "@/shared/run-state";
import { testServices } from "./testing/test-services";

/** The instance view's read side for long runs: a folded summary, rows by position, one node's detail. */
describe.each(["sqlite", "memory"] as const)("InstanceQueryService timeline (%s)", (storage) => {
  const foldOf = (events: readonly StoredEvent[]) => {
    const m = emptyRunState();
    for (const e of events) applyRunEvent(m, e.event, e.at);
    return runStateDto(m);
  };

  it("summarizes a version as the fold of its events, and serves its rows by position", async () => {
    await using t = testServices(storage);
    const { instances, orchestrator, events } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "counter-loop", input: null });
    await t.settled(instanceId);
    const log = (await events.list(instanceId, { limit: 10_000 }));

    const summary = await instances.timeline({ instanceId, tail: 5 });
    expect(summary).toMatchObject({ version: 1, count: log.length, lastEventId: log.at(-1)!.id });
    expect(summary.state).toEqual(foldOf(log));
    expect(summary.state.status).toBe("completed");
    expect(summary.tail).toEqual(log.slice(-5));

    expect(await instances.timelineRows({ instanceId, version: 1, offset: 3, limit: 4 })).toEqual(log.slice(3, 7));
    expect(await instances.timelineRows({ instanceId, version: 1, offset: log.length, limit: 10 })).toEqual([]);
  });

  it("keeps versions apart and extends a cached fold with the events appended since", async () => {
    await using t = testServices(storage);
    const { instances, orchestrator, control, events } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "approval-gate", input: "v1" });
    await t.settled(instanceId);
    const paused = await instances.timeline({ instanceId });
    expect(paused.state).toMatchObject({ status: "paused", waitingNode: "approve", states: { approve: "waiting" } });

    await control.answer(instanceId, "yes");
    await t.settled(instanceId);
    await control.reinvoke(instanceId, "v2");
    await t.settled(instanceId);

    const log = (await events.list(instanceId, { limit: 10_000 }));
    const v1 = log.filter((e) => e.version === 1);
    const first = await instances.timeline({ instanceId, version: 1 });
    expect(first).toMatchObject({ version: 1, count: v1.length, lastEventId: log.at(-1)!.id });
    expect(first.state).toEqual(foldOf(v1));
    expect(first.state.waitingNode).toBeNull();
    const latest = await instances.timeline({ instanceId });
    expect(latest.version).toBe(2);
    expect(latest.state).toEqual(foldOf(log.filter((e) => e.version === 2)));
    await expect(instances.timeline({ instanceId, version: 9 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("narrows get to one node's invocations and delivers, or to none", async () => {
    await using t = testServices(storage);
    const { instances, orchestrator } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "map-reduce", input: null });
    await t.settled(instanceId);
    const full = await instances.get({ instanceId });
    const node = full.invocations[0].node;

    const lean = await instances.get({ instanceId, node: null });
    expect(lean.invocations).toEqual([]);
    expect(lean.delivers).toEqual([]);
    expect(lean.summary).toEqual(full.summary);

    const one = await instances.get({ instanceId, node });
    expect(one.invocations).toEqual(full.invocations.filter((i) => i.node === node));
    const touched = new Set(one.invocations.flatMap((i) => [...i.consumed, ...i.delivered]));
    expect(one.delivers.map((d) => d.deliverId).sort()).toEqual(full.delivers.filter((d) => touched.has(d.deliverId)).map((d) => d.deliverId).sort());
    expect(one.delivers.length).toBeGreaterThan(0);
  });
});
