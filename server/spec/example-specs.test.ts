import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isGraphInterrupt } from "@/server/graph/errors";
import type { HumanInputRequest } from "@/server/graph/nodes/human-input-node";
import { createAgentNodeType } from "@/server/agent/graph-node/agent-node-type";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { createBuiltinNodeRegistry } from "@/server/graph/spec/builtin-node-types";
import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { AgentDefinitionSchema } from "@/server/services/agents/agent-definition";
import { namedDefaultsOf } from "@/server/services/agents/agent-assembly";
import { parse as parseYaml } from "yaml";
import { parseSpecYaml } from "./parse-spec-yaml";

const DIR = path.resolve(import.meta.dirname, "../../config/graphs");
// Agent nodes get a scripted model: the remote LLM is the one thing that cannot run here.
const scripts = new Map<string, ScriptedProvider>();
// The example specs name the example agents of config/agents.
const AGENTS = path.resolve(import.meta.dirname, "../../config/agents");
const agents = (name: string) => namedDefaultsOf(AgentDefinitionSchema.parse(parseYaml(readFileSync(path.join(AGENTS, `${name}.yml`), "utf8"))));
const compiler = new GraphSpecCompiler(createBuiltinNodeRegistry().register(createAgentNodeType({ provider: (_config, node) => scripts.get(node)!, agents })));
const load = (file: string) => parseSpecYaml(readFileSync(path.join(DIR, file), "utf8"), { compiler });
const contents = (result: { result: readonly { content: unknown }[] }) => result.result.map((p) => p.content);

describe("example specs in config/graphs", () => {
  it("ships the seven examples, and each compiles", () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith(".yml")).sort();
    expect(files).toEqual(expect.arrayContaining(["approval-gate.yml", "counter-loop.yml", "map-reduce.yml", "paced-pipeline.yml", "research-team.yml", "review-cycle.yml", "subgraph.yml"]));
    for (const f of files) expect(load(f).spec.name).toBe(f.replace(/\.yml$/, ""));
  });

  it("map-reduce fans out on the parallel scheduler and sums at the join", async () => {
    const { graph } = load("map-reduce.yml");
    expect(graph.schedulerKind).toBe("parallel");
    const { result, ctx } = await graph.invoke(["a", "bb", "ccc", "dddd"]);
    expect(contents(result)).toEqual([10]);
    expect(ctx.state.total).toBe(10);
    // With no input it runs on its sample list.
    expect(contents((await graph.invoke(null)).result)).toEqual([26]);
  });

  it("approval-gate interrupts with its prompt, then resumes with the answer", async () => {
    const { graph } = load("approval-gate.yml");
    const ctx = graph.createContext({ input: "v2.1" });
    const interrupt = await graph.run(ctx).catch((e: unknown) => e);
    expect(isGraphInterrupt(interrupt)).toBe(true);
    const request = (interrupt as { value: HumanInputRequest }).value;
    expect(request).toMatchObject({ kind: "human_input", node: "approve", context: ["Deploy request: v2.1"] });
    const done = await graph.resume(ctx, "yes");
    expect(done.reachedEnd).toBe(true);
    expect(contents(done)).toEqual(["published (answer: yes)"]);
  });

  it("approval-gate through invoke(): the interrupt names the node, a fresh context resumes there", async () => {
    const { graph } = load("approval-gate.yml");
    const interrupt = await graph.invoke("v3").catch((e: unknown) => e);
    expect(isGraphInterrupt(interrupt)).toBe(true);
    const node = (interrupt as { node: string }).node;
    const ctx = graph.createContext({ state: { resumeTarget: node } });
    expect(contents(await graph.resume(ctx, "approve"))).toEqual(["published (answer: approve)"]);
  });

  it("approval-gate takes the reject branch on another answer", async () => {
    const { graph } = load("approval-gate.yml");
    const ctx = graph.createContext({ input: "v2.1" });
    await graph.run(ctx).catch(() => undefined);
    expect(contents(await graph.resume(ctx, "no"))).toEqual(["rejected (answer: no)"]);
  });

  it("counter-loop loops until its state counter reaches the limit", async () => {
    const { result, ctx } = await load("counter-loop.yml").graph.invoke(null);
    expect(contents(result)).toEqual(["counted to 5"]);
    expect(ctx.state.count).toBe(5);
  });

  it("subgraph runs its inline fragment as one node", async () => {
    const { graph } = load("subgraph.yml");
    expect(graph.nodeIdMap["greeting/format"]).toBeDefined();
    expect(contents((await graph.invoke("world")).result)).toEqual(["HELLO, WORLD!"]);
  });

  it("the complete example in docs/spec-format.md compiles and runs", async () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/spec-format.md"), "utf8");
    const example = doc.split("## A complete example")[1].split("```yaml\n")[1].split("```")[0];
    const { graph } = parseSpecYaml(example);
    expect(contents((await graph.invoke(["a", "bb", "ccc", "dddd"])).result)).toEqual([10]);
  });

  it("paced-pipeline waits at each delay, then publishes", async () => {
    const started = performance.now();
    const { result } = await load("paced-pipeline.yml").graph.invoke("42");
    expect(performance.now() - started).toBeGreaterThanOrEqual(38);
    expect(contents(result)).toEqual(["published ITEM 42"]);
  });

  it("review-cycle loops coder → reviewer → coder until the reviewer delivers to END", async () => {
    const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });
    scripts.set("coder", new ScriptedProvider([deliver("reviewer", "v1: add(a, b) = a - b"), { text: "sent" }, deliver("reviewer", "v2: add(a, b) = a + b"), { text: "sent" }]));
    scripts.set("reviewer", new ScriptedProvider([deliver("coder", "add subtracts: fix it"), { text: "sent back" }, deliver("__end__", "add(a, b) = a + b"), { text: "approved" }]));
    const { graph } = load("review-cycle.yml");
    expect(graph.schedulerKind).toBe("parallel");
    const { result } = await graph.invoke("Write add(a, b).");
    expect(contents(result)).toEqual(["add(a, b) = a + b"]);
    const secondCoderInput = scripts.get("coder")!.requests[2].messages.filter((m) => m.role === "user").at(-1)!;
    expect(secondCoderInput.content).toMatch(/\[Input from graph node 'reviewer'[^\]\n]*\]\nadd subtracts: fix it/);
  });
});
