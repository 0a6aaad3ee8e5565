import { describe, expect, it } from "vitest";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";

const echo = () =>
  new Graph({ name: "echo" })
    .addNode(new FunctionNode("say", (_c, i) => `echo ${(i[0].content as { content: string }).content}`))
    .addEdge(START, "say")
    .addEdge("say", END)
    .compile();

describe("instance lifecycle", () => {
  it("creates the instance on first run with the frozen node_id_map", async () => {
    const coordinator = createInMemoryCoordinator();
    const g = echo();
    const { result } = await g.invoke("one", { coordinator });
    const rec = await coordinator.instances.load(result.instanceId);
    expect(rec).toMatchObject({ version: 1, status: "completed", graphName: "echo" });
    expect(rec?.nodeIdMap).toEqual(g.nodeIdMap);
    expect(Object.isFrozen(rec?.nodeIdMap)).toBe(true);
  });

  it("new input to a completed instance makes version N+1, keeping IO per version", async () => {
    const coordinator = createInMemoryCoordinator();
    const g = echo();
    const first = await g.invoke("one", { coordinator });
    const again = g.createContext({ coordinator, instanceId: first.result.instanceId, input: "two" });
    const second = await g.run(again);
    expect(second.version).toBe(2);
    expect(second.result.map((p) => p.content)).toEqual(["echo two"]);
    const io = await coordinator.instances.ioRecords(first.result.instanceId);
    expect(io.map((r) => [r.version, r.input.content, r.output?.map((p) => p.content)])).toEqual([
      [1, "one", ["echo one"]],
      [2, "two", ["echo two"]],
    ]);
    const versions = await coordinator.instances.versions(first.result.instanceId);
    expect(versions.map((v) => [v.version, v.status, v.nodeIdMap])).toEqual([
      [1, "completed", g.nodeIdMap],
      [2, "completed", g.nodeIdMap],
    ]);
  });

  it("an interrupt awaits beforeInterruptPause while the instance is still RUNNING, then pauses; a rejection leaves it RUNNING", async () => {
    const gate = () =>
      new Graph({ name: "gate" })
        .addNode(new FunctionNode("ask", (ctx) => ctx.interrupt({ question: "ok?" })))
        .addEdge(START, "ask")
        .addEdge("ask", END)
        .compile();
    const coordinator = createInMemoryCoordinator();
    const seen: unknown[] = [];
    const ctx = gate().createContext({
      coordinator,
      instanceId: "g1",
      beforeInterruptPause: async ({ node, value }) => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push([node, value, (await coordinator.instances.load("g1"))?.status]);
      },
    });
    await expect(gate().run(ctx)).rejects.toMatchObject({ name: "GraphInterrupt" });
    expect(seen).toEqual([["ask", { question: "ok?" }, "running"]]);
    expect((await coordinator.instances.load("g1"))?.status).toBe("paused");

    const failing = gate().createContext({ coordinator, instanceId: "g2", beforeInterruptPause: () => Promise.reject(new Error("disk gone")) });
    await expect(gate().run(failing)).rejects.toThrow("disk gone");
    expect((await coordinator.instances.load("g2"))?.status).toBe("running");
  });

  it("a prior RUNNING version is marked crashed on takeover", async () => {
    const coordinator = createInMemoryCoordinator();
    const rec = await coordinator.instances.create({ graphName: "echo", nodeIdMap: {}, input: { content: 1 } });
    const next = await coordinator.instances.beginInvocation(rec.instanceId, { content: 2 });
    expect(next.version).toBe(2);
    expect((await coordinator.instances.loadVersion(rec.instanceId, 1))?.status).toBe("crashed");
  });

  it("a run given the instance as its owner just read it starts from that record, once, without reading it again", async () => {
    const coordinator = createInMemoryCoordinator();
    const g = echo();
    const rec = await coordinator.instances.create({ graphName: "echo", nodeIdMap: g.nodeIdMap, input: { content: "one" } });
    const store = coordinator.instances;
    const loads: string[] = [];
    const load = store.load.bind(store);
    store.load = (id: string) => (loads.push(id), load(id));
    const ctx = g.createContext({ coordinator, instanceId: rec.instanceId, input: "one", instance: rec });
    const first = await g.run(ctx, "fresh");
    expect(first).toMatchObject({ version: 1, status: "completed" });
    expect(loads).toEqual([]);
    // The record is the run's start only: a second run of the context reads the instance as it is then.
    const again = await g.run(ctx, "fresh");
    expect(again.version).toBe(2);
    expect(loads).toEqual([rec.instanceId]);
  });
});
