import { describe, expect, it } from "vitest";
import { END, START } from "../names";
import { StateValidationError } from "../errors";
import { compileGraphSpec } from "./graph-spec-compiler";
import type { DelayNode } from "../nodes/delay-node";
import type { SpecError } from "./spec-errors";

const edge = (from: string, to: string) => ({ from, to });
const chain = (...names: string[]) => names.slice(1).map((n, i) => edge(names[i], n));

/** START → each node in order → END, run with `input`; returns END's contents and the final state. */
async function runChain(nodes: { name: string; node_type: string; config: unknown }[], input: unknown, extra: Record<string, unknown> = {}) {
  const { graph } = compileGraphSpec({ name: "t", nodes, edges: chain(START, ...nodes.map((n) => n.name), END), ...extra });
  const { result, ctx } = await graph.invoke(input);
  return { out: result.result.map((p) => p.content), state: ctx.state as Record<string, unknown> };
}

const fn = (name: string, config: Record<string, unknown>) => ({ name, node_type: "function", config });

describe("function node ops", () => {
  it("identity passes the input's value through (the payload envelope is unwrapped)", async () => {
    expect((await runChain([fn("a", { op: "identity" })], { k: 1 })).out).toEqual([{ k: 1 }]);
  });

  it("template renders input paths and state fields; objects as JSON, missing as empty", async () => {
    const state = { state: { n: { type: "number", default: 3 } } };
    const { out } = await runChain([fn("a", { op: "template", template: "{{ input.user.name }} has {{state.n}} {{input.tags}}{{input.none}}{{other}}" })], { user: { name: "ada" }, tags: ["x"] }, state);
    expect(out).toEqual(['ada has 3 ["x"]']);
  });

  it("set_state writes the input or a literal, and delivers the input", async () => {
    const state = { state: { a: { type: "any" }, b: { type: "object" } } };
    const { out, state: s } = await runChain([fn("x", { op: "set_state", field: "a" }), fn("y", { op: "set_state", field: "b", value: { k: 1 } })], "in", state);
    expect(out).toEqual(["in"]);
    expect(s).toMatchObject({ a: "in", b: { k: 1 } });
  });

  it("increment adds `by` and delivers the new value", async () => {
    const { out, state } = await runChain([fn("x", { op: "increment", field: "n", by: 2.5 })], null, { state: { n: { type: "number", default: 1 } } });
    expect(out).toEqual([3.5]);
    expect(state.n).toBe(3.5);
  });

  it("map applies its function to the value, or to each element of a list", async () => {
    const run = async (f: string, input: unknown) => (await runChain([fn("m", { op: "map", fn: f })], input)).out[0];
    expect(await run("upper", ["ab", "c"])).toEqual(["AB", "C"]);
    expect(await run("length", "four")).toBe(4);
    expect(await run("square", 3)).toBe(9);
    expect(await run("words", " a  b ")).toEqual(["a", "b"]);
    expect(await run("to_number", "12")).toBe(12);
    expect(await run("not", 0)).toBe(true);
  });

  it("route_if tests the input or a state field with each comparison", async () => {
    const route = async (config: Record<string, unknown>, input: unknown) => {
      const nodes = [fn("r", { op: "route_if", then: "yes", else: "no", ...config }), fn("yes", { op: "template", template: "yes" }), fn("no", { op: "template", template: "no" })];
      const { graph } = compileGraphSpec({ name: "t", state: { s: { type: "object", default: { n: 5 } } }, nodes, edges: [edge(START, "r"), edge("r", "yes"), edge("r", "no"), edge("yes", END), edge("no", END)] });
      return (await graph.invoke(input)).result.result[0].content;
    };
    expect(await route({ compare: "eq", value: "a" }, "a")).toBe("yes");
    expect(await route({ compare: "ne", value: "a" }, "a")).toBe("no");
    expect(await route({ compare: "gt", value: 3, field: "s.n" }, null)).toBe("yes");
    expect(await route({ compare: "lte", value: 4, field: "s.n" }, null)).toBe("no");
    expect(await route({ compare: "lt", value: 3 }, "text")).toBe("no");
    expect(await route({ compare: "in", value: [1, 2] }, 2)).toBe("yes");
    expect(await route({ compare: "eq", value: { a: [1] } }, { a: [1] })).toBe("yes");
    expect(await route({ compare: "truthy" }, [])).toBe("no");
  });
});

describe("fan_out and join", () => {
  const fanJoin = (fanConfig: Record<string, unknown>, joinConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    compileGraphSpec({
      name: "t",
      scheduler: "parallel",
      ...extra,
      nodes: [
        { name: "split", node_type: "fan_out", config: { targets: ["a", "b"], ...fanConfig } },
        fn("a", { op: "map", fn: "double" }),
        fn("b", { op: "map", fn: "negate" }),
        { name: "j", node_type: "join", config: joinConfig },
      ],
      edges: [edge(START, "split"), edge("split", "a"), edge("split", "b"), edge("a", "j"), edge("b", "j"), edge("j", END)],
    }).graph;

  it("deals items round-robin to the targets; the join fires once with every result", async () => {
    const { result } = await fanJoin({}, { reduce: "list" }).invoke([1, 2, 3]);
    expect(result.result).toHaveLength(1);
    expect((result.result[0].content as number[]).sort((x, y) => x - y)).toEqual([-2, 2, 6]);
  });

  it("reads the list from a state field, or default_items when the input is not a list", async () => {
    const fromState = fanJoin({ field: "xs" }, { reduce: "sum" }, { state: { xs: { type: "array", default: [1, 1] } } });
    expect((await fromState.invoke(null)).result.result[0].content).toBe(1);
    expect((await fanJoin({ default_items: [5] }, { reduce: "sum" }).invoke("not a list")).result.result[0].content).toBe(10);
  });

  it("join reducers: sum, count, min, max, concat, join, and `into` keeps the value in state", async () => {
    const joined = async (reduce: string, extra: Record<string, unknown> = {}) => (await fanJoin({}, { reduce, ...extra }).invoke([1, 2, 3, 4])).result.result[0].content;
    expect(await joined("sum")).toBe(2);
    expect(((await joined("concat")) as number[]).sort((x, y) => x - y)).toEqual([-4, -2, 2, 6]);
    expect(await joined("count")).toBe(4);
    expect(await joined("min")).toBe(-4);
    expect(await joined("max")).toBe(6);
    expect(String(await joined("join", { separator: "|" })).split("|").sort()).toEqual(["-2", "-4", "2", "6"]);
    const g = fanJoin({}, { reduce: "sum", into: "total" }, { state: { total: { type: "number" } } });
    expect((await g.invoke([1])).ctx.state.total).toBe(2);
  });
});

describe("delay, human_input and subgraph nodes", () => {
  it("delay takes ms or seconds and delivers what it received", async () => {
    const t = performance.now();
    const { out } = await runChain([{ name: "d1", node_type: "delay", config: { seconds: 0.015 } }, { name: "d2", node_type: "delay", config: { ms: 15 } }], "x");
    expect(performance.now() - t).toBeGreaterThanOrEqual(28);
    expect(out).toEqual(["x"]);
  });

  it("delay's seconds_from_input: the run's object input sets the wait, any other input keeps the configured one", async () => {
    const spec = { name: "t", nodes: [{ name: "wait", node_type: "delay", config: { ms: 20, seconds_from_input: "pace_seconds" } }], edges: chain(START, "wait", END) };
    const { graph } = compileGraphSpec(spec);
    const wait = graph.node("wait") as unknown as DelayNode;
    expect(wait.durationFor({ pace_seconds: 12 })).toBe(12_000);
    expect(wait.durationFor({ pace_seconds: 0.25, item: "a" })).toBe(250);
    expect(wait.durationFor({ pace_seconds: -3 })).toBe(0);
    expect(wait.durationFor({ pace_seconds: 1e9 })).toBe(86_400_000);
    for (const other of ["42", 42, null, [1], { pace_seconds: "10" }, { pace: 10 }]) expect(wait.durationFor(other)).toBe(20);
    // A run started with a day's pace would hang: pace 0 finishes at once, with the input delivered on.
    const { graph: slow } = compileGraphSpec({ ...spec, nodes: [{ name: "wait", node_type: "delay", config: { seconds: 86_400, seconds_from_input: "pace_seconds" } }] });
    expect((await slow.invoke({ pace_seconds: 0 })).result.result.map((p) => p.content)).toEqual([{ pace_seconds: 0 }]);
    expect(() => compileGraphSpec({ ...spec, nodes: [{ name: "wait", node_type: "delay", config: { ms: 1, seconds_from_input: "" } }] })).toThrow(/seconds_from_input/);
  });

  it("human_input interrupts with its prompt and delivers the answer on resume", async () => {
    const { graph } = compileGraphSpec({ name: "t", nodes: [{ name: "ask", node_type: "human_input", config: { prompt: "ok?" } }], edges: chain(START, "ask", END) });
    const ctx = graph.createContext({ input: "ctx" });
    await expect(graph.run(ctx)).rejects.toMatchObject({ value: { kind: "human_input", prompt: "ok?", node: "ask" } });
    expect((await graph.resume(ctx, 42)).result.map((p) => p.content)).toEqual([42]);
  });

  it("a subgraph node runs its inline graph on the shared state", async () => {
    const sub = { nodes: [fn("inc", { op: "increment", field: "n" })], edges: chain(START, "inc", END) };
    const { out, state } = await runChain([{ name: "s", node_type: "subgraph", config: { spec: "sub" } }, fn("after", { op: "template", template: "n={{input}}" })], null, {
      subgraphs: { sub },
      state: { n: { type: "number", default: 10 } },
    });
    expect(out).toEqual(["n=11"]);
    expect(state.n).toBe(11);
  });

  it("carries the spec's node description onto the node", () => {
    const { graph } = compileGraphSpec({ name: "t", nodes: [{ ...fn("a", { op: "identity" }), description: "does a" }], edges: chain(START, "a") });
    expect(graph.node("a").description).toBe("does a");
  });
});

describe("typed state: what a node writes must fit the field's declared type", () => {
  const issuesOf = (spec: Record<string, unknown>) => {
    try {
      compileGraphSpec({ name: "t", ...spec });
    } catch (error) {
      return (error as SpecError).issues.map((i) => [i.path.join("."), i.message]);
    }
    return [];
  };
  const single = (node: Record<string, unknown>, state: Record<string, unknown>) => issuesOf({ state, nodes: [node], edges: chain(START, node.name as string, END) });

  it("a set_state literal of another type, a dotted write and a join `into` of another type are compile errors", () => {
    const count = { count: { type: "number" } };
    expect(single(fn("a", { op: "set_state", field: "count", value: "x" }), count)).toEqual([["nodes.0.config.value", 'state field "count" is number, not string']]);
    expect(single(fn("a", { op: "set_state", field: "stats.n" }), { stats: { type: "object" } })).toEqual([
      ["nodes.0.config.field", '"stats.n" is a path: a node writes a whole state field, name the field'],
    ]);
    expect(single({ name: "j", node_type: "join", config: { reduce: "join", into: "count" } }, count)).toEqual([
      ["nodes.0.config.into", 'state field "count" is number; reduce join makes a string'],
    ]);
    // Matching types, and `any`, compile.
    expect(single(fn("a", { op: "set_state", field: "count", value: 3 }), count)).toEqual([]);
    expect(single({ name: "j", node_type: "join", config: { reduce: "list", into: "xs" } }, { xs: { type: "any" } })).toEqual([]);
  });

  it("set_state of an input the field's type refuses fails the node with StateValidationError, the state unchanged", async () => {
    const { graph } = compileGraphSpec({ name: "t", state: { count: { type: "number", default: 7 } }, nodes: [fn("put", { op: "set_state", field: "count" })], edges: chain(START, "put", END) });
    const ctx = graph.createContext({ input: "hello" });
    const failure = await graph.run(ctx).then(() => null, (e: unknown) => e);
    expect(failure).toBeInstanceOf(StateValidationError);
    expect((failure as Error).message).toBe('state field "count" is number, not string: "hello"');
    expect(ctx.state.count).toBe(7);
    expect(graph.stateSchema.safeParse(ctx.state).success).toBe(true);
    // An input of the declared type is written.
    const ok = graph.createContext({ input: 12 });
    await graph.run(ok);
    expect(ok.state.count).toBe(12);
  });
});
