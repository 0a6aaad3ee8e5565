import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { GraphRecursionError } from "./errors";
import { RecordingObserver } from "./events";
import { Graph } from "./graph";
import { END, START } from "./names";
import { FunctionNode } from "./nodes/function-node";
import { createInMemoryCoordinator } from "./persistence/factories";
import { fanOut } from "./testing/fixtures";

describe("ParallelScheduler", () => {
  it("fans out and joins: the join fires once with every branch's deliver", async () => {
    const { result } = await fanOut(50).invoke(null);
    expect(result.result).toEqual([{ content: 50, source: "join" }]);
    expect(result.iterations).toBe(50 + 4);
  });

  it("a fast branch never waits for a slow one", async () => {
    const finished: string[] = [];
    const mark = (name: string, ms = 0) =>
      new FunctionNode(name, async () => {
        if (ms) await sleep(ms);
        finished.push(name);
        return name;
      });
    const g = new Graph()
      .addNode(mark("slow", 200))
      .addNode(mark("f1"))
      .addNode(mark("f2"))
      .addNode(mark("f3"))
      .addNode(new FunctionNode("join", (_c, input) => input.map((i) => i.content)))
      .addEdge(START, "slow")
      .addEdge(START, "f1")
      .addEdge("f1", "f2")
      .addEdge("f2", "f3")
      .addEdge("f3", "join")
      .addEdge("slow", "join")
      .addEdge("join", END)
      .compile({ scheduler: "parallel" });
    const { result } = await g.invoke(null);
    expect(finished).toEqual(["f1", "f2", "f3", "slow"]);
    expect(result.result[0].content).toEqual(expect.arrayContaining(["slow", "f3"]));
  });

  it("a join never fires while another activated branch could still reach it", async () => {
    const joinInputs: number[] = [];
    const g = new Graph()
      .addNode(new FunctionNode("short", () => "s"))
      .addNode(new FunctionNode("long1", async () => (await sleep(20), "l1")))
      .addNode(new FunctionNode("long2", async () => (await sleep(20), "l2")))
      .addNode(new FunctionNode("join", (_c, input) => (joinInputs.push(input.length), "joined")))
      .addEdge(START, "short")
      .addEdge(START, "long1")
      .addEdge("long1", "long2")
      .addEdge("short", "join")
      .addEdge("long2", "join")
      .addEdge("join", END)
      .compile({ scheduler: "parallel" });
    await g.invoke(null);
    expect(joinInputs).toEqual([2]);
  });

  it("a branch that was never activated does not hold the join back", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("pick", (ctx) => void ctx.deliver("only a", "a")))
      .addNode(new FunctionNode("a", () => "a"))
      .addNode(new FunctionNode("b", () => "b"))
      .addNode(new FunctionNode("join", (_c, input) => input.map((i) => i.content)))
      .addEdge(START, "pick")
      .addEdge("pick", "a")
      .addEdge("pick", "b")
      .addEdge("a", "join")
      .addEdge("b", "join")
      .compile({ scheduler: "parallel" });
    const { result } = await g.invoke(null);
    expect(result.result[0].content).toEqual(["a"]);
  });

  it("runs branches concurrently on shared state", async () => {
    let inFlight = 0;
    let peak = 0;
    const g = new Graph();
    g.addNode(new FunctionNode("fan", (ctx) => ["x", "y", "z"].forEach((t) => ctx.deliver(t, t)))).addEdge(START, "fan");
    for (const t of ["x", "y", "z"]) {
      g.addNode(
        new FunctionNode(t, async (ctx) => {
          peak = Math.max(peak, ++inFlight);
          await sleep(10);
          inFlight--;
          (ctx.state as unknown as { seen?: string[] }).seen ??= [];
          return t;
        }),
      ).addEdge("fan", t);
    }
    await g.compile({ scheduler: "parallel" }).invoke(null);
    expect(peak).toBe(3);
  });

  it("loops produce new node instances name#seq", async () => {
    const obs = new RecordingObserver();
    let n = 0;
    const g = new Graph()
      .addNode(new FunctionNode("body", (ctx) => void ctx.deliver(n, ++n < 3 ? "body" : END)))
      .addEdge(START, "body")
      .addEdge("body", "body")
      .addEdge("body", END)
      .compile({ scheduler: "parallel" });
    await g.invoke(null, { observer: obs });
    expect(obs.ofType("node_started").map((e) => e.nodeInstance)).toEqual(["__start__#0", "body#0", "body#1", "body#2", "__end__#0"]);
  });

  it("concatenates parallel delivers into END instead of overwriting", async () => {
    const g = new Graph();
    g.addNode(new FunctionNode("fan", (ctx) => ["p", "q"].forEach((t) => ctx.deliver(t, t)))).addEdge(START, "fan");
    g.addNode(new FunctionNode("p", async () => (await sleep(5), "P"))).addEdge("fan", "p");
    g.addNode(new FunctionNode("q", () => "Q")).addEdge("fan", "q");
    const { result } = await g.compile({ scheduler: "parallel" }).invoke(null);
    expect(result.result.map((r) => r.content)).toEqual(["Q", "P"]);
  });

  it("the first failure wins; in-flight siblings finish and nothing new starts", async () => {
    const coordinator = createInMemoryCoordinator();
    const started: string[] = [];
    const g = new Graph();
    g.addNode(new FunctionNode("fan", (ctx) => ["bad", "slow"].forEach((t) => ctx.deliver(t, t)))).addEdge(START, "fan");
    g.addNode(new FunctionNode("bad", () => {
      throw new Error("bad branch");
    })).addEdge("fan", "bad");
    g.addNode(new FunctionNode("slow", async () => (started.push("slow"), await sleep(20), "s"))).addEdge("fan", "slow").addEdge("slow", "after");
    g.addNode(new FunctionNode("after", () => (started.push("after"), "a")));
    const ctx = g.compile({ scheduler: "parallel" }).createContext({ coordinator });
    await expect(g.compile({ scheduler: "parallel" }).run(ctx)).rejects.toThrow("bad branch");
    expect(started).toEqual(["slow"]);
    const slow = (await coordinator.nodes.listByInstance(ctx.instanceId)).find((i) => i.nodeName === "slow");
    expect(slow?.status).toBe("COMPLETED");
  });

  it("maxIterations is the panic net", async () => {
    const g = new Graph()
      .addNode(new FunctionNode("spin", (ctx) => void ctx.deliver(null, "spin")))
      .addEdge(START, "spin")
      .addEdge("spin", "spin")
      .addEdge("spin", END)
      .compile({ scheduler: "parallel", maxIterations: 20 });
    await expect(g.invoke(null)).rejects.toBeInstanceOf(GraphRecursionError);
  });

  it("scales linearly: 2,000 branches join correctly", async () => {
    const { result } = await fanOut(2000).invoke(null);
    expect(result.result[0].content).toBe(2000);
  });

  it("ON_RECEIVE (deprecated) starts on the first delivery instead of waiting for the join", async () => {
    const runs: number[] = [];
    const g = new Graph();
    g.addNode(new FunctionNode("fan", (ctx) => ["fast", "slow"].forEach((t) => ctx.deliver(t, t)))).addEdge(START, "fan");
    g.addNode(new FunctionNode("fast", () => "f")).addEdge("fan", "fast").addEdge("fast", "eager");
    g.addNode(new FunctionNode("slow", async () => (await sleep(20), "s"))).addEdge("fan", "slow").addEdge("slow", "eager");
    g.addNode(new FunctionNode("eager", (_c, input) => (runs.push(input.length), "e"), { triggerMode: "ON_RECEIVE" }));
    await g.compile({ scheduler: "parallel" }).invoke(null);
    expect(runs).toEqual([1, 1]);
  });
});
