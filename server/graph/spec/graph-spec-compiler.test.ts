import { describe, expect, it } from "vitest";
import { END, START } from "../names";
import { GraphSpecCompiler, compileGraphSpec } from "./graph-spec-compiler";
import { SpecError, isSpecError } from "./spec-errors";

const node = (name: string, config: Record<string, unknown> = { op: "identity" }, node_type = "function") => ({ name, node_type, config });
const edge = (from: string, to: string) => ({ from, to });
const chain = (...names: string[]) => names.slice(1).map((n, i) => edge(names[i], n));

function issuesOf(input: unknown) {
  try {
    compileGraphSpec(input);
  } catch (error) {
    expect(isSpecError(error)).toBe(true);
    return (error as SpecError).issues;
  }
  throw new Error("expected a SpecError");
}

describe("GraphSpecCompiler", () => {
  it("always creates START and END, and honours scheduler and max_iterations", () => {
    const { graph } = compileGraphSpec({ name: "g", scheduler: "parallel", max_iterations: 7, nodes: [node("a")], edges: chain(START, "a", END) });
    expect(graph.nodeNames()).toEqual([START, END, "a"]);
    expect(graph.schedulerKind).toBe("parallel");
    expect(graph.maxIterations).toBe(7);
    expect(graph.name).toBe("g");
  });

  it("builds the declarative state with defaults by type, and each run gets its own copy", async () => {
    const spec = {
      name: "g",
      state: { n: { type: "number" }, tags: { type: "array", default: ["x"] }, note: { type: "string", description: "d" } },
      nodes: [node("a", { op: "set_state", field: "tags", value: ["y"] })],
      edges: chain(START, "a", END),
    };
    const { graph } = compileGraphSpec(spec);
    const first = await graph.invoke(1);
    expect(first.ctx.state).toMatchObject({ n: 0, tags: ["y"], note: "" });
    expect(graph.createContext().state.tags).toEqual(["x"]);
  });

  it("reports a default that does not match its type, and reserved state fields", () => {
    const issues = issuesOf({ name: "g", state: { n: { type: "number", default: "zero" }, result: { type: "array" } }, nodes: [node("a")], edges: chain(START, "a") });
    expect(issues.map((i) => i.pathText)).toEqual(["state.n.default", "state.result"]);
  });

  it("reports state fields a config names but the spec does not declare", () => {
    const issues = issuesOf({ name: "g", state: { s: { type: "string" } }, nodes: [node("a", { op: "increment", field: "missing" }), node("b", { op: "increment", field: "s" })], edges: chain(START, "a", "b") });
    expect(issues.map((i) => [i.pathText, i.message])).toEqual([
      ["nodes[0].config.field", 'state field "missing" is not declared under state'],
      ["nodes[1].config.field", 'state field "s" is string, not number'],
    ]);
  });

  it("reports a node declared twice at its second name", () => {
    const issues = issuesOf({ name: "g", nodes: [node("a"), node("a")], edges: chain(START, "a") });
    expect(issues[0]).toMatchObject({ pathText: "nodes[1].name", message: 'node "a" is declared twice' });
  });

  it("maps edge problems to the edge end: unknown nodes, into START, out of END", () => {
    const issues = issuesOf({ name: "g", nodes: [node("a")], edges: [edge(START, "a"), edge("a", "zz"), edge("a", START), edge(END, "a")] });
    expect(issues.map((i) => i.pathText)).toEqual(["edges[1].to", "edges[2].to", "edges[3].from"]);
  });

  it("maps reachability issues to the node", () => {
    const issues = issuesOf({ name: "g", nodes: [node("a"), node("lost")], edges: chain(START, "a", END) });
    expect(issues).toEqual([expect.objectContaining({ kind: "topology", path: ["nodes", 1], message: `node "lost" is unreachable from ${START}` })]);
  });

  it("requires a route target to be an edge of its node", () => {
    const issues = issuesOf({ name: "g", nodes: [node("a", { op: "route_if", compare: "truthy", then: "b", else: "c" }), node("b")], edges: [edge(START, "a"), edge("a", "b")] });
    expect(issues.map((i) => [i.pathText, i.message])).toEqual([["nodes[0].config.else", '"a" has no edge to "c": no node is named "c"']]);
  });

  it("accepts next: __end__ on a node whose only edge is the implicit one to END", () => {
    expect(() => compileGraphSpec({ name: "g", nodes: [node("a", { op: "identity", next: END })], edges: [edge(START, "a")] })).not.toThrow();
  });

  it("requires next on a node that cannot choose among several edges", () => {
    const spec = { name: "g", nodes: [node("a"), node("b"), node("c")], edges: [edge(START, "a"), edge("a", "b"), edge("a", "c")] };
    expect(issuesOf(spec)[0]).toMatchObject({ pathText: "nodes[0]", message: expect.stringMatching(/2 outgoing edges \(b, c\).*set config.next/) });
    spec.nodes[0] = node("a", { op: "identity", next: "c" });
    expect(() => compileGraphSpec(spec)).not.toThrow();
  });

  it("reports unknown and self-embedding subgraphs", () => {
    const loop = { nodes: [node("inner", { spec: "loop" }, "subgraph")], edges: chain(START, "inner") };
    const issues = issuesOf({ name: "g", subgraphs: { loop }, nodes: [node("s", { spec: "loop" }, "subgraph"), node("t", { spec: "nope" }, "subgraph")], edges: chain(START, "s", "t") });
    expect(issues.map((i) => [i.pathText, i.message])).toEqual([
      ["subgraphs.loop.nodes[0].config.spec", "subgraph \"loop\" embeds itself (loop → loop)"],
      ["nodes[1].config.spec", 'unknown subgraph "nope"; declared: loop'],
    ]);
  });

  it("reports problems inside a subgraph under subgraphs.<name>", () => {
    const sub = { nodes: [node("x", { seconds: "soon" }, "delay")], edges: chain(START, "x") };
    const err = issuesOf({ name: "g", subgraphs: { sub }, nodes: [node("s", { spec: "sub" }, "subgraph")], edges: chain(START, "s") });
    expect(err[0].pathText).toBe("subgraphs.sub.nodes[0].config.seconds");
  });

  it("compiles each use of a subgraph separately, so node ids never collide", () => {
    const sub = { nodes: [node("x")], edges: chain(START, "x", END) };
    const { graph } = compileGraphSpec({ name: "g", subgraphs: { sub }, nodes: [node("one", { spec: "sub" }, "subgraph"), node("two", { spec: "sub" }, "subgraph")], edges: chain(START, "one", "two", END) });
    expect(graph.nodeIdMap["one/x"]).not.toBe(graph.nodeIdMap["two/x"]);
  });

  it("re-binds persisted node ids from a node_id_map, subgraph nodes included", () => {
    const sub = { nodes: [node("x")], edges: chain(START, "x") };
    const spec = { name: "g", subgraphs: { sub }, nodes: [node("a"), node("s", { spec: "sub" }, "subgraph")], edges: chain(START, "a", "s") };
    const first = compileGraphSpec(spec).graph;
    const again = new GraphSpecCompiler().compile(spec, { nodeIdMap: first.nodeIdMap }).graph;
    expect(again.nodeIdMap).toEqual(first.nodeIdMap);
  });

  it("collects every issue of a spec in one error, and validate lists them without throwing", () => {
    const spec = { name: "g", nodes: [node("a", { op: "increment", field: "nope" }), node("b", { ms: -1 }, "delay")], edges: [edge(START, "a"), edge("a", "ghost")] };
    const compiler = new GraphSpecCompiler();
    expect(compiler.validate(spec).map((i) => i.pathText)).toEqual(["nodes[1].config.ms"]);
    spec.nodes[1] = node("b", { ms: 1 }, "delay");
    expect(compiler.validate(spec).map((i) => i.pathText)).toEqual(["nodes[0].config.field", "edges[1].to"]);
    expect(() => compiler.compile(spec)).toThrow(/nodes\[0\]\.config\.field: state field "nope"/);
  });

  it("throws SpecError, never anything else, for input that is not an object", () => {
    for (const input of [null, 42, "text", [], { nodes: "x" }]) expect(() => compileGraphSpec(input)).toThrow(SpecError);
  });
});

describe("node policies in a spec", () => {
  const spec = (extra: Record<string, unknown>, policy: Record<string, unknown>) => ({
    name: "policies",
    ...extra,
    nodes: [{ ...node("a"), ...policy }, node("b")],
    edges: chain(START, "a", "b", END),
  });

  it("a node's retry and timeout_ms become its policy; defaults apply to the nodes that set none", () => {
    const { graph } = compileGraphSpec(
      spec({ defaults: { timeout_ms: 5000 } }, { retry: { max_attempts: 3, initial_interval_ms: 200, retry_on: ["ECONNRESET"] } }),
    );
    expect(graph.node("a").policy).toEqual({
      timeoutMs: 5000,
      retry: { maxAttempts: 3, initialIntervalMs: 200, backoffFactor: 2, maxIntervalMs: 60_000, retryOn: ["ECONNRESET"] },
    });
    expect(graph.node("b").policy).toEqual({ timeoutMs: 5000, retry: undefined });
    expect(compileGraphSpec(spec({}, {})).graph.node("a").policy).toBeUndefined();
  });

  it("a bad policy is an error at its path", () => {
    expect(new GraphSpecCompiler().validate(spec({}, { retry: { max_attempts: 0 } })).map((i) => i.pathText)).toEqual(["nodes[0].retry.max_attempts"]);
    expect(new GraphSpecCompiler().validate(spec({ defaults: { timeout: 5 } }, {})).map((i) => i.pathText)).toEqual(["defaults.timeout"]);
  });

  it("a timeout or backoff longer than a timer can hold (24.8 days) is an error, not a wait of 1 ms", () => {
    const long = 3_000_000_000;
    const issues = new GraphSpecCompiler().validate(spec({ defaults: { timeout_ms: long } }, { retry: { max_attempts: 2, initial_interval_ms: long, max_interval_ms: long } }));
    expect(issues.map((i) => [i.pathText, i.message])).toEqual([
      ["nodes[0].retry.initial_interval_ms", "initial_interval_ms is at most 2147483647 ms (24.8 days)"],
      ["nodes[0].retry.max_interval_ms", "max_interval_ms is at most 2147483647 ms (24.8 days)"],
      ["defaults.timeout_ms", "timeout_ms is at most 2147483647 ms (24.8 days)"],
    ]);
    expect(compileGraphSpec(spec({}, { timeout_ms: 2_147_483_647 })).graph.node("a").policy?.timeoutMs).toBe(2_147_483_647);
  });
});
