import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startAppServices } from "./app-services";
import { EventRecorder } from "./event-recorder";
import { GraphControlService } from "./graph-control-service";
import type { StoredEvent } from "./event-log";
import { testServices, type TestServices } from "./testing/test-services";
import { slowChainSpec } from "./testing/slow-chain-spec";

const CHAIN = slowChainSpec("slow-chain", 40);

const FANOUT = `
name: slow-fanout
scheduler: parallel
nodes:
  - { name: split, node_type: fan_out, config: { targets: [a, b, c] } }
  - { name: a, node_type: delay, config: { ms: 40 } }
  - { name: b, node_type: delay, config: { ms: 60 } }
  - { name: c, node_type: delay, config: { ms: 80 } }
  - { name: a2, node_type: delay, config: { ms: 40 } }
  - { name: total, node_type: join, config: { reduce: sum } }
edges:
  - { from: __start__, to: split }
  - { from: split, to: a }
  - { from: split, to: b }
  - { from: split, to: c }
  - { from: a, to: a2 }
  - { from: a2, to: total }
  - { from: b, to: total }
  - { from: c, to: total }
  - { from: total, to: __end__ }
`;

const started = async (t: TestServices, id: string) =>
  (await t.services.events.list(id)).filter((e) => e.event.type === "node_started");

async function resultOf(t: TestServices, instanceId: string) {
  return (await t.services.instances.get({ instanceId })).summary.result?.map((p) => p.content);
}

describe.each([
  ["linear", CHAIN, "slow-chain", "x", "d1"],
  ["parallel", FANOUT, "slow-fanout", [1, 2, 3], "a"],
] as const)("pause then resume (%s)", (_kind, yaml, name, input, pauseAt) => {
  it("gives the same result as an uninterrupted run, and no node starts while paused", async () => {
    await using t = testServices();
    const { orchestrator, control } = t.services;
    await t.services.specs.save(yaml);

    const plain = await orchestrator.create({ spec: name, input });
    expect((await t.settled(plain.instanceId)).status).toBe("completed");
    const expected = await resultOf(t, plain.instanceId);

    const run = await orchestrator.create({ spec: name, input });
    await t.waitForEvent(run.instanceId, (e) => e.event.type === "node_started" && "node" in e.event && e.event.node === pauseAt);
    const paused = await control.pause(run.instanceId);
    expect(paused).toMatchObject({ command: "PAUSE_GRAPH", status: "paused", draining: false });
    const startsAtPause = (await started(t, run.instanceId)).length;
    await sleep(150);
    expect(await started(t, run.instanceId)).toHaveLength(startsAtPause);
    expect((await t.services.events.list(run.instanceId)).some((e) => e.event.type === "drained")).toBe(true);
    expect(await control.pause(run.instanceId)).toMatchObject({ status: "paused" }); // idempotent

    expect(await control.resume(run.instanceId)).toMatchObject({ command: "RESUME_GRAPH" });
    expect((await t.settled(run.instanceId)).status).toBe("completed");
    expect(await resultOf(t, run.instanceId)).toEqual(expected);
    await expect(control.resume(run.instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
  });
});

describe("GraphControlService", () => {
  it("stop ends a running instance at a safe point; stopped is terminal", async () => {
    await using t = testServices();
    await t.services.specs.save(CHAIN);
    const { instanceId } = await t.services.orchestrator.create({ spec: "slow-chain", input: "x" });
    await t.waitForEvent(instanceId, (e) => e.event.type === "node_started" && "node" in e.event && e.event.node === "d1");
    expect(await t.services.control.stop(instanceId)).toMatchObject({ command: "STOP_GRAPH", status: "stopped" });
    for (const op of [() => t.services.control.resume(instanceId), () => t.services.control.pause(instanceId)]) {
      await expect(op()).rejects.toMatchObject({ code: "INVALID_STATE" });
    }
    await expect(t.services.control.deliver({ instanceId, node: "publish", content: 1 })).rejects.toMatchObject({ code: "INVALID_STATE" });
  });

  it("pause answers draining while a slow node is still finishing, and the instance pauses when it ends", async () => {
    await using t = testServices();
    await t.services.specs.save(CHAIN.replace("name: d1, node_type: delay, config: { ms: 40 }", "name: d1, node_type: delay, config: { ms: 400 }").replace("slow-chain", "slower-chain"));
    const { instanceId } = await t.services.orchestrator.create({ spec: "slower-chain", input: "x" });
    await t.waitForEvent(instanceId, (e) => e.event.type === "node_started" && "node" in e.event && e.event.node === "d1");
    const fast = new GraphControlService({ orchestrator: t.services.orchestrator, recorder: new EventRecorder(t.services.events, t.services.bus), durability: t.services.durability, drainWaitMs: 20 });
    expect(await fast.pause(instanceId)).toMatchObject({ status: "running", draining: true });
    expect((await t.settled(instanceId)).status).toBe("paused");
  });

  it("stop on a paused instance persists STOPPED at once and logs the transition", async () => {
    await using t = testServices();
    const { instanceId } = await t.services.orchestrator.create({ spec: "approval-gate", input: "x" });
    await t.settled(instanceId);
    expect(await t.services.control.stop(instanceId)).toMatchObject({ status: "stopped" });
    const last = (await t.services.events.list(instanceId)).at(-1)!.event;
    expect(last).toMatchObject({ type: "instance_status", from: "paused", to: "stopped" });
  });

  it("unknown instances are NOT_FOUND for every command", async () => {
    await using t = testServices("memory");
    const c = t.services.control;
    for (const op of [
      () => c.pause("404"),
      () => c.stop("404"),
      () => c.resume("404"),
      () => c.answer("404", 1),
      () => c.reinvoke("404", 1),
      () => c.deliver({ instanceId: "404", node: "x", content: 1 }),
    ]) {
      await expect(op()).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
  });

  it("deliver to a completed instance persists a PENDING row, then a new version consumes it", async () => {
    await using t = testServices();
    const { instanceId } = await t.services.orchestrator.create({ spec: "paced-pipeline", input: "a" });
    await t.settled(instanceId);
    const res = await t.services.control.deliver({ instanceId, node: "publish", content: "extra" });
    expect(res).toMatchObject({ command: "DELIVER_TO_NODE", pickup: "new_run" });
    const done = await t.settled(instanceId);
    expect(done).toMatchObject({ version: 2, status: "completed" });
    const view = await t.services.instances.get({ instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["published extra"]);
    const row = view.delivers.find((d) => d.deliverId === res.deliverId)!;
    expect(row).toMatchObject({ source: "__external__", target: "publish", status: "CONSUMED_COMPLETED" });
    const publish = view.invocations.filter((i) => i.node === "publish");
    expect(publish.at(-1)!.consumed).toContain(res.deliverId);
    expect(view.invocations.filter((i) => i.node === "fetch")).toHaveLength(1); // recovery ran from the row, not the entry
  });

  it("deliver to a paused instance waits for resume; to an unknown node is BAD_REQUEST", async () => {
    await using t = testServices();
    const { instanceId } = await t.services.orchestrator.create({ spec: "approval-gate", input: "x" });
    await t.settled(instanceId);
    await expect(t.services.control.deliver({ instanceId, node: "nope", content: 1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await t.services.control.deliver({ instanceId, node: "record", content: "no" })).toMatchObject({ pickup: "on_resume", status: "paused" });
  });

  it("deliver while running is picked up by the run (or a follow-up run) and never lost", async () => {
    await using t = testServices();
    await t.services.specs.save(CHAIN);
    const { instanceId } = await t.services.orchestrator.create({ spec: "slow-chain", input: "x" });
    await t.waitForEvent(instanceId, (e) => e.event.type === "node_started" && "node" in e.event && e.event.node === "d1");
    const res = await t.services.control.deliver({ instanceId, node: "d3", content: "late" });
    expect(res.pickup).toBe("running");
    await t.settled(instanceId);
    const view = await t.services.instances.get({ instanceId });
    expect(view.delivers.find((d) => d.deliverId === res.deliverId)?.status).toBe("CONSUMED_COMPLETED");
  });

  it("deliver to a node that is running is taken by the same run: the node runs once more after its invocation, no new version", async () => {
    await using t = testServices();
    await t.services.specs.save(CHAIN);
    const { instanceId } = await t.services.orchestrator.create({ spec: "slow-chain", input: "x" });
    await t.waitForEvent(instanceId, (e) => e.event.type === "node_started" && "node" in e.event && e.event.node === "d2");
    const res = await t.services.control.deliver({ instanceId, node: "d2", content: "again" });
    expect(res.pickup).toBe("running");
    expect(await t.settled(instanceId)).toMatchObject({ status: "completed", version: 1 });
    const view = await t.services.instances.get({ instanceId });
    expect(view.summary.versions).toHaveLength(1);
    expect(view.delivers.find((d) => d.deliverId === res.deliverId)?.status).toBe("CONSUMED_COMPLETED");
    expect(view.invocations.filter((i) => i.node === "d2").map((i) => i.status)).toEqual(["COMPLETED", "COMPLETED"]);
  });

  it("an exclusive server marks every other executor's RUNNING instances CRASHED at once and recovers them to completion", async () => {
    await using t = testServices("sqlite", undefined, { exclusive: true });
    const { specs, orchestrator, sweeper } = t.services;
    const record = await specs.resolve("paced-pipeline");
    const { graph } = await specs.compile(record);
    const store = orchestrator.coordinator.instances;
    // A previous server process, killed a moment ago: its heartbeat is fresh, its run id is not ours.
    const dead = await store.create({
      graphName: graph.name,
      specId: record.specId,
      nodeIdMap: graph.nodeIdMap,
      input: { content: "z" },
      attrs: { executor_process_id: "5f0c1c3e-previous-server", heartbeat: Date.now() },
    });
    const report = await startAppServices(t.services, {});
    t.services.recovery.stop();
    expect(report.crashed).toEqual([dead.instanceId]);
    expect(report.recovered).toEqual([dead.instanceId]);
    expect((await t.settled(dead.instanceId)).status).toBe("completed");
    const events = (await t.services.events.list(dead.instanceId)).map((e: StoredEvent) => e.event);
    expect(events).toContainEqual(expect.objectContaining({ type: "instance_status", from: "running", to: "crashed" }));
    expect(events).toContainEqual(expect.objectContaining({ type: "run_started", mode: "recovery" }));
    expect(await resultOf(t, dead.instanceId)).toEqual(["published ITEM Z"]);
    expect(await sweeper.sweep()).toEqual([]);
  });

  it("without exclusivity, another executor's instance is orphaned only once its heartbeat lapsed", async () => {
    await using t = testServices("sqlite", undefined, { staleAfterMs: 60_000 });
    const { specs, orchestrator, sweeper } = t.services;
    const record = await specs.resolve("paced-pipeline");
    const { graph } = await specs.compile(record);
    const store = orchestrator.coordinator.instances;
    const args = { graphName: graph.name, specId: record.specId, nodeIdMap: graph.nodeIdMap, input: { content: "z" } };
    const alive = await store.create({ ...args, attrs: { executor_process_id: "other-server", heartbeat: Date.now() } });
    const lapsed = await store.create({ ...args, attrs: { executor_process_id: "other-server", heartbeat: Date.now() - 120_000 } });
    expect(await sweeper.sweep()).toEqual([lapsed.instanceId]);
    expect((await store.load(alive.instanceId))?.status).toBe("running");
  });

  it("recover re-runs a CRASHED instance by hand (MODEX_RECOVERY=off) and refuses any other status", async () => {
    await using t = testServices("sqlite", undefined, { exclusive: true, autoRecovery: false });
    const { specs, orchestrator, control } = t.services;
    const record = await specs.resolve("paced-pipeline");
    const { graph } = await specs.compile(record);
    const dead = await orchestrator.coordinator.instances.create({
      graphName: graph.name,
      specId: record.specId,
      nodeIdMap: graph.nodeIdMap,
      input: { content: "q" },
      attrs: { executor_process_id: "previous-server", heartbeat: Date.now() },
    });
    const report = await startAppServices(t.services, {});
    t.services.recovery.stop();
    expect(report).toMatchObject({ crashed: [dead.instanceId], recovered: [] });
    expect((await orchestrator.coordinator.instances.load(dead.instanceId))?.status).toBe("crashed");
    expect(await control.recover(dead.instanceId)).toMatchObject({ command: "RECOVER", status: "running" });
    expect((await t.settled(dead.instanceId)).status).toBe("completed");
    await expect(control.recover(dead.instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(control.recover("404")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
