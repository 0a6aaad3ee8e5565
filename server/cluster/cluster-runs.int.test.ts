import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { ClusterWorker, type GraphCatalog } from "./cluster-worker";
import { ClusterFixture } from "./testing/cluster-fixture";
import { chainGraph, testGraphCatalog } from "./testing/cluster-graphs";
import { workerGraphs } from "./worker-graphs";

/**
 * A worker runs an instance as the single-process app does (GraphOrchestrator and the worker share
 * InstanceRun): what an interrupted run waits for is saved, breakpoints hold it, resumes continue it
 * with the answer or past the breakpoint, and specs with agent nodes compile and run, from the spec
 * revision the instance was created from.
 */
describe("a worker runs instances as the app does", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });
  const fixture = async () => {
    const fx = await ClusterFixture.create();
    cleanup.push(() => fx[Symbol.asyncDispose]());
    return fx;
  };
  const start = async (fx: ClusterFixture, graphs: GraphCatalog) => {
    const w = await ClusterWorker.start({ url: fx.url, graphs, leaseMs: 2000 });
    cleanup.push(() => w.stop(1000));
    return w;
  };
  const instance = async (fx: ClusterFixture, id: string) =>
    (await fx.query<{ status: string; attrs: Record<string, unknown>; spec_id: string | null }>("SELECT status, attrs, spec_id FROM graph_instances WHERE instance_id = $1 AND is_latest", [id]))[0];
  const statusIs = (fx: ClusterFixture, id: string, status: string) => async () => (await instance(fx, id))?.status === status;
  const result = async (fx: ClusterFixture, id: string) =>
    (await fx.query<{ output: { content: unknown }[] }>("SELECT output FROM graph_io_records WHERE instance_id = $1 ORDER BY version DESC LIMIT 1", [id]))[0].output.map((p) => p.content);
  const completed = async (fx: ClusterFixture, id: string) =>
    (await fx.query<{ node_name: string }>("SELECT node_name FROM node_invocations WHERE instance_id = $1 AND status = 'COMPLETED' ORDER BY started_at", [id])).map((r) => r.node_name);
  const eventTypes = async (fx: ClusterFixture, id: string) =>
    (await fx.query<{ type: string }>("SELECT type FROM engine_events WHERE instance_id = $1 ORDER BY id", [id])).map((r) => r.type);

  it("a human-input interrupt saves what it waits for; the answer through ClusterControl resumes it to completion", async () => {
    const fx = await fixture();
    const { catalog, specs, agents } = await workerGraphs({ specsDir: path.resolve("config/graphs"), agents: { model: null, agentsDir: path.resolve("config/agents") } });
    cleanup.push(() => agents.mcp.close());
    await start(fx, catalog);
    const head = await specs.resolve("approval-gate");
    const { graph } = await specs.compile(head);
    await fx.control.create({ graph, input: "v2 to production", instanceId: "h1", specId: head.specId });
    // What the run waits for is saved before the paused status (beforeInterruptPause), and both before
    // interrupt_raised is stored.
    await fx.until(async () => (await eventTypes(fx, "h1")).includes("interrupt_raised"), 15_000, "the interrupt's event");
    const paused = await instance(fx, "h1");
    expect(paused.status).toBe("paused");
    expect(paused.spec_id).toBe(head.specId);
    expect(paused.attrs.waiting_for).toMatchObject({ kind: "human_input", node: "approve", prompt: "Approve this deploy? Answer yes or no." });
    await fx.control.answer("h1", "yes");
    await fx.until(statusIs(fx, "h1", "completed"), 15_000, "completed");
    expect(await result(fx, "h1")).toEqual(["published (answer: yes)"]);
    expect((await instance(fx, "h1")).attrs.waiting_for).toBeNull(); // the new start cleared it
    expect((await completed(fx, "h1")).filter((n) => n === "draft")).toHaveLength(1); // nothing before the gate ran again
  }, 60_000);

  it("a breakpoint holds the run before its node (held_at); Step runs that node and holds again; Continue completes it", async () => {
    const fx = await fixture();
    await start(fx, testGraphCatalog);
    await fx.control.create({ graph: chainGraph(5), input: "b", instanceId: "b1", breakpoints: ["n2"] });
    await fx.until(async () => (await instance(fx, "b1")).attrs.held_at === "n2", 15_000, "held at n2");
    expect((await instance(fx, "b1")).status).toBe("paused");
    expect(await completed(fx, "b1")).toEqual(["__start__", "n0", "n1"]);

    await fx.control.resume("b1", { step: true });
    await fx.until(async () => (await instance(fx, "b1")).attrs.held_at === "n3", 15_000, "held again, at n3");
    expect((await instance(fx, "b1")).status).toBe("paused");
    expect(await completed(fx, "b1")).toEqual(["__start__", "n0", "n1", "n2"]);

    await fx.control.resume("b1");
    await fx.until(statusIs(fx, "b1", "completed"), 15_000, "completed");
    expect(await completed(fx, "b1")).toEqual(["__start__", "n0", "n1", "n2", "n3", "n4", "__end__"]);
    expect(await result(fx, "b1")).toEqual(["b"]);
    expect((await instance(fx, "b1")).attrs.held_at).toBeNull();
  }, 60_000);

  it("a deliver to a completed instance starts a wake run (version 2) on a worker; a reinvoke runs version 3 fresh", async () => {
    const fx = await fixture();
    await start(fx, testGraphCatalog);
    const version = async () => (await fx.query<{ version: number }>("SELECT version FROM graph_instances WHERE instance_id = 'w1' AND is_latest"))[0].version;
    // Each node waits 400 ms, so a version runs for over a second: the two reinvokes below both reach
    // the row lock while version 4 runs, even on a loaded machine (with instant nodes version 4 could
    // finish first, and the second reinvoke would rightly be accepted as version 5).
    await fx.control.create({ graph: chainGraph(3, 400), input: "first", instanceId: "w1" });
    await fx.until(statusIs(fx, "w1", "completed"), 15_000, "version 1 completed");
    await fx.control.deliver({ instanceId: "w1", node: "n2", content: "late" });
    await fx.until(async () => (await version()) === 2 && (await instance(fx, "w1")).status === "completed", 15_000, "version 2 completed");
    expect(await result(fx, "w1")).toEqual(["late"]);
    const rows = await fx.query<{ status: string }>("SELECT status FROM deliver_rows WHERE instance_id = 'w1' AND source_node = '__external__'");
    expect(rows).toEqual([{ status: "CONSUMED_COMPLETED" }]);

    await fx.control.reinvoke("w1", "again");
    await fx.until(async () => (await version()) === 3 && (await instance(fx, "w1")).status === "completed", 15_000, "version 3 completed");
    expect(await result(fx, "w1")).toEqual(["again"]);
    // Two reinvokes of version 3 sent together (a reply waits for the worker's start, so awaiting the
    // first would let its run end first): whichever takes the row lock second is refused (version 4 is
    // due, or already running), as the single process refuses a reinvoke of a running instance; one new
    // version runs, on the accepted input.
    const outcome = (input: string) =>
      fx.control.reinvoke("w1", input).then(
        () => "accepted",
        (error: { code?: string }) => error.code,
      );
    const [x, y] = await Promise.all([outcome("x"), outcome("y")]);
    expect([x, y].sort()).toEqual(["INVALID_STATE", "accepted"]);
    await fx.until(async () => (await version()) === 4 && (await instance(fx, "w1")).status === "completed" && (await fx.idle()), 15_000, "version 4 completed");
    expect(await version()).toBe(4);
    expect(await result(fx, "w1")).toEqual([x === "accepted" ? "x" : "y"]);
  }, 60_000);

  it("a spec with agent nodes compiles and runs to completion in a worker (scripted model)", async () => {
    const fx = await fixture();
    const workspace = mkdtempSync(path.join(tmpdir(), "modex-worker-agents-"));
    cleanup.push(() => rmSync(workspace, { recursive: true, force: true }));
    const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });
    const kb = (args: Record<string, unknown>) => ({ toolCalls: [{ name: "knowledge_base", args }] });
    const scripts: Record<string, Script> = {
      coder: [kb({ action: "write", pattern: "decisions", content: "- add returns a + b" }), deliver("reviewer", "add(a, b) = a + b"), { text: "sent" }],
      reviewer: [kb({ action: "read", pattern: "decisions" }), deliver("__end__", "add(a, b) = a + b: correct"), { text: "approved" }],
    };
    const providers = Object.fromEntries(Object.entries(scripts).map(([n, s]) => [n, new ScriptedProvider(s)]));
    const { catalog, specs, agents } = await workerGraphs({
      specsDir: path.resolve("config/graphs"),
      agents: { agentsDir: path.resolve("config/agents"), workspace, provider: (_c, node) => providers[node] },
    });
    cleanup.push(() => agents.mcp.close());
    await start(fx, catalog);
    const head = await specs.resolve("review-cycle");
    await fx.control.create({ graph: (await specs.compile(head)).graph, input: "Write add(a, b).", instanceId: "a1", specId: head.specId });
    await fx.until(statusIs(fx, "a1", "completed"), 30_000, "completed").catch(async (e) => {
      console.log(await instance(fx, "a1"), await fx.query("SELECT node_name, status, error FROM node_invocations WHERE instance_id = 'a1'"));
      throw e;
    });
    expect(await result(fx, "a1")).toEqual(["add(a, b) = a + b: correct"]);
    // The reviewer read the coder's decision from the run's knowledge base.
    expect(providers.reviewer.requests[1].messages.at(-1)?.content).toContain("- add returns a + b");
    await fx.until(async () => (await eventTypes(fx, "a1")).includes("run_finished"), 5_000, "run_finished stored");
  }, 60_000);
});
