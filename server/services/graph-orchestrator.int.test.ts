import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { testServices } from "./testing/test-services";

describe.each(["sqlite", "memory"] as const)("GraphOrchestrator (%s)", (storage) => {
  it("creates an instance from a spec name, runs it to completion and logs every event before publishing it", async () => {
    await using t = testServices(storage);
    const { orchestrator, specs, events, bus } = t.services;
    const published: number[] = [];
    // Another connection sees only committed rows: an announced event must already be durable there.
    const other = t.databaseFile ? new BetterSqlite3(t.databaseFile, { readonly: true }) : null;
    const durable: boolean[] = [];
    const created = await orchestrator.create({ spec: "map-reduce", input: ["a", "bb", "ccc"] });
    bus.subscribe(created.instanceId, (e) => {
      published.push(e.id);
      const listed = events.list(created.instanceId); // these stores answer synchronously: listed by the time it is announced
      expect(Array.isArray(listed) && listed.some((l) => l.id === e.id)).toBe(true);
      if (other) durable.push(!!other.prepare("SELECT 1 FROM engine_events WHERE id = ?").get(e.id));
    });
    expect(created).toMatchObject({ version: 1, status: "running" });
    const done = await t.settled(created.instanceId);
    expect(done.status).toBe("completed");
    expect(done.specId).toBe((await specs.resolve("map-reduce")).specId);
    const view = await t.services.instances.get({ instanceId: created.instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual([6]);
    const types = (await events.list(created.instanceId)).map((e) => e.event.type);
    expect(types[0]).toBe("instance_status");
    expect(types).toContain("run_started");
    expect(types.at(-1)).toBe("run_finished");
    expect(types.filter((x) => x === "instance_status")).toHaveLength(2); // null→running, running→completed
    expect(published.length).toBeGreaterThan(0);
    expect(published).toEqual([...published].sort((a, b) => a - b)); // announced in log order
    if (other) {
      expect(durable.length).toBe(published.length);
      expect(durable.every(Boolean)).toBe(true);
      other.close();
    }
  });

  it("freezes the node_id_map and the spec snapshot: a later spec edit does not change the instance", async () => {
    await using t = testServices(storage);
    const { orchestrator, specs, control } = t.services;
    const first = await orchestrator.create({ spec: "paced-pipeline", input: "x" });
    const before = await t.settled(first.instanceId);
    const original = await specs.get("paced-pipeline");
    const edited = original.yaml.replace('template: "published {{input}}"', 'template: "shipped {{input}}"');
    expect(await specs.save(edited)).toMatchObject({ created: true });
    await control.reinvoke(first.instanceId, "y");
    const after = await t.settled(first.instanceId);
    expect(after).toMatchObject({ version: 2, status: "completed", specId: original.specId });
    expect(after.nodeIdMap).toEqual(before.nodeIdMap);
    const view = await t.services.instances.get({ instanceId: first.instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["published ITEM Y"]);
    expect(view.summary.versions.map((v) => [v.version, v.status])).toEqual([
      [1, "completed"],
      [2, "completed"],
    ]);
    const v1 = await t.services.instances.get({ instanceId: first.instanceId, version: 1 });
    expect(v1.summary.result?.map((p) => p.content)).toEqual(["published ITEM X"]);
    expect(v1.invocations.every((i) => i.instanceVersion === 1)).toBe(true);
    expect(v1.invocations.length).toBe(view.invocations.length / 2);
  });

  it("answering a HumanInputNode resumes the run from persisted state", async () => {
    await using t = testServices(storage);
    const { orchestrator, control, instances } = t.services;
    const { instanceId } = await orchestrator.create({ spec: "approval-gate", input: "v2" });
    const paused = await t.settled(instanceId);
    expect(paused.status).toBe("paused");
    const view = await instances.get({ instanceId });
    expect(view.waitingFor).toEqual({
      kind: "human_input",
      node: "approve",
      prompt: "Approve this deploy? Answer yes or no.",
      context: ["Deploy request: v2"],
    });
    await expect(control.resume(instanceId)).rejects.toMatchObject({ code: "INVALID_STATE" });
    const answered = await control.answer(instanceId, "yes");
    // The status once the resume is committed: this graph's nodes after the human are synchronous, and
    // the resume commits with the first of them, so the run may already have ended by then.
    expect(answered.command).toBe("ANSWER");
    expect(["running", "completed"]).toContain(answered.status);
    const done = await t.settled(instanceId);
    expect(done.status).toBe("completed");
    const final = await instances.get({ instanceId });
    expect(final.summary.result?.map((p) => p.content)).toEqual(["published (answer: yes)"]);
    expect(final.waitingFor).toBeNull();
    const draft = final.invocations.filter((i) => i.node === "draft");
    expect(draft).toHaveLength(1); // nothing upstream of the human ran again
    await expect(control.answer(instanceId, "again")).rejects.toMatchObject({ code: "INVALID_STATE" });
  });

  it("answering resumes a graph of 40 nodes too (an instance record the connection does not keep)", async () => {
    await using t = testServices(storage);
    const { orchestrator, specs, control } = t.services;
    const lines = ["name: long-gate", "nodes:", "  - { name: gate, node_type: human_input, config: { prompt: go? } }"];
    for (let i = 0; i < 40; i++) lines.push(`  - { name: s${i}, node_type: delay, config: { ms: 1 } }`);
    lines.push("edges:", "  - { from: __start__, to: gate }", "  - { from: gate, to: s0 }");
    for (let i = 0; i < 39; i++) lines.push(`  - { from: s${i}, to: s${i + 1} }`);
    lines.push("  - { from: s39, to: __end__ }");
    await specs.save(lines.join("\n") + "\n");
    const { instanceId } = await orchestrator.create({ spec: "long-gate", input: "go" });
    expect((await t.settled(instanceId)).status).toBe("paused");
    await control.answer(instanceId, "yes");
    expect((await t.settled(instanceId)).status).toBe("completed");
    const view = await t.services.instances.get({ instanceId });
    expect(view.invocations.filter((i) => i.node === "gate").map((i) => i.status)).toEqual(["CANCELLED", "COMPLETED"]);
  });

  it("builds the instance view: topology with node types and joins, invocations with their deliver ids", async () => {
    await using t = testServices(storage);
    const { instanceId } = await t.services.orchestrator.create({ spec: "map-reduce", input: ["a", "b", "c"] });
    await t.settled(instanceId);
    const view = await t.services.instances.get({ instanceId });
    const byName = Object.fromEntries(view.topology.nodes.map((n) => [n.name, n]));
    expect(byName.__start__).toMatchObject({ isStart: true, nodeType: "start" });
    expect(byName.__end__).toMatchObject({ isEnd: true, nodeType: "end" });
    expect(byName.reduce).toMatchObject({ isJoin: true, nodeType: "join" });
    expect(byName.split).toMatchObject({ isJoin: false, nodeType: "fan_out" });
    expect(view.topology.edges).toContainEqual({ from: "split", to: "mapper_a", implicit: false });
    const reduce = view.invocations.find((i) => i.node === "reduce")!;
    expect(reduce).toMatchObject({ status: "COMPLETED", instanceVersion: 1 });
    expect(reduce.consumed).toHaveLength(3);
    expect(reduce.delivered).toHaveLength(1);
    const split = view.invocations.find((i) => i.node === "split")!;
    expect(split.delivered).toHaveLength(3);
    expect(view.summary.spec).toMatchObject({ name: "map-reduce" });
  });

  it("lists instances newest first and filters by status", async () => {
    await using t = testServices(storage);
    const a = await t.services.orchestrator.create({ spec: "paced-pipeline", input: 1 });
    await t.settled(a.instanceId);
    const b = await t.services.orchestrator.create({ spec: "approval-gate", input: 2 });
    await t.settled(b.instanceId);
    const all = await t.services.instances.list();
    expect(all.map((i) => i.instanceId)).toEqual([b.instanceId, a.instanceId]);
    expect((await t.services.instances.list({ status: "paused" })).map((i) => [i.instanceId, i.waiting])).toEqual([[b.instanceId, true]]);
    expect(await t.services.instances.list({ limit: 1 })).toHaveLength(1);
  });

  it("a spec that is missing is NOT_FOUND; a spec that does not compile is INVALID_SPEC with located issues", async () => {
    await using t = testServices(storage);
    await expect(t.services.orchestrator.create({ spec: "nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const bad = "name: broken\nnodes:\n  - name: a\n    node_type: delay\n    config: { seconds: -1 }\nedges: []\n";
    try {
      await t.services.specs.save(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_SPEC" });
      const issue = (error as { details: { issues: { pathText: string; line: number }[] } }).details.issues[0];
      expect(issue.pathText).toBe("nodes[0].config.seconds");
      expect(issue.line).toBe(5);
    }
  });
});

describe("answers and spec summaries", () => {
  it("records who answered a human input, and when, in the instance view", async () => {
    await using t = testServices();
    const { instanceId } = await t.services.orchestrator.create({ spec: "approval-gate", input: "x" });
    await t.settled(instanceId);
    await t.services.control.answer(instanceId, "yes", "session");
    await t.settled(instanceId);
    const view = await t.services.instances.get({ instanceId });
    expect(view.summary.answers).toEqual([{ node: "approve", value: "yes", by: "session", at: expect.any(Number), version: 1 }]);
  });

  it.each(["sqlite", "memory"] as const)("lists specs with their node and instance counts (%s)", async (storage) => {
    await using t = testServices(storage);
    const a = await t.services.orchestrator.create({ spec: "approval-gate", input: 1 });
    await t.settled(a.instanceId);
    const b = await t.services.orchestrator.create({ spec: "map-reduce", input: ["x"] });
    await t.settled(b.instanceId);
    const byName = Object.fromEntries((await t.services.specs.list()).map((s) => [s.name, s]));
    expect(byName["map-reduce"]).toMatchObject({ nodeCount: 5, description: expect.stringMatching(/Fan a list/), instances: { running: 0, total: 1 } });
    expect(byName["approval-gate"].instances).toEqual({ running: 0, total: 1 });
    expect(byName["counter-loop"].instances).toEqual({ running: 0, total: 0 });
  });
});
