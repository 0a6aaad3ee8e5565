import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryControlChannel } from "@/server/agent/control/in-memory-control-channel";
import { LengthGuardHook } from "@/server/agent/hook/builtin/length-guard-hook";
import { LoopDetectionHook } from "@/server/agent/hook/builtin/loop-detection-hook";
import { CurrentTimeHook } from "@/server/agent/hook/builtin/current-time-hook";
import { Extension, type ExtensionContextFor } from "@/server/agent/extensions/extension";
import { ExtensionManager } from "@/server/agent/extensions/extension-manager";
import { createAgentNodeType } from "@/server/agent/graph-node/agent-node-type";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { InMemorySessionMemory } from "@/server/agent/react/session-memory";
import { defineTool } from "@/server/agent/tools/tool";
import { createBuiltinNodeRegistry } from "@/server/graph/spec/builtin-node-types";
import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { AgentAssembler, namedDefaultsOf } from "./agent-assembly";
import { AgentDefinitionSchema } from "./agent-definition";
import { ToolCatalog } from "./tool-catalog";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const big = defineTool({ name: "big", description: "", args: z.object({}), readOnly: true, execute: () => "x".repeat(5_000) });
const slow = defineTool({ name: "slow", description: "", args: z.object({}), execute: () => new Promise<string>((r) => setTimeout(() => r("late"), 2_000)) });
const rm = defineTool({ name: "rm", description: "", args: z.object({}), execute: () => "removed" });
const risky = defineTool({ name: "risky", description: "", args: z.object({}), needsApproval: true, execute: () => "done" });
const catalog = () => new ToolCatalog().add(big).add(slow).add(rm).add(risky);
const define = (extra: Record<string, unknown> = {}) => AgentDefinitionSchema.parse({ name: "a", description: "d", instructions: "You are A.", ...extra });

function assembler(script: Script, extensions?: ExtensionManager) {
  const overflowDir = mkdtempSync(path.join(tmpdir(), "modex-overflow-"));
  dirs.push(overflowDir);
  const provider = new ScriptedProvider(script);
  const seen: Array<{ model?: string; node: string | null }> = [];
  const a = new AgentAssembler({
    provider: ({ settings, node }) => (seen.push({ model: settings.model, node }), provider),
    catalog: catalog(),
    overflowDir: ({ sessionId }) => path.join(overflowDir, sessionId),
    extensions,
  });
  return { a, provider, seen, overflowDir };
}
const runtime = () => ({ channel: new InMemoryControlChannel(), memory: new InMemorySessionMemory(), onEvent: () => {} });
const call = (name: string) => ({ toolCalls: [{ name, args: {} }] });

describe("AgentAssembler: one definition, built the same way for chat and nodes", () => {
  it("the chat's agent: instructions as system prompt, its tools, its model, the hooks it turns on", () => {
    const { a, seen } = assembler([]);
    const agent = a.forChat(define({ tools: ["big", "rm"], model: "m2", hooks: { length_guard: false, current_time: true } }), runtime());
    expect(agent.registry.list().map((t) => t.name)).toEqual(["big", "rm"]);
    expect(seen).toEqual([{ model: "m2", node: null }]);
    const hooks = [...agent.hooks.hooksFor("BEFORE_ITERATION"), ...agent.hooks.hooksFor("AFTER_LLM_RESPONSE"), ...agent.hooks.hooksFor("START_NODE_TURN")];
    expect(hooks.some((h) => h instanceof LoopDetectionHook)).toBe(true);
    expect(hooks.some((h) => h instanceof LengthGuardHook)).toBe(false);
    expect(hooks.some((h) => h instanceof CurrentTimeHook)).toBe(true);
  });

  it("approval policy: tool_default keeps each tool's flag, always asks for every writer, never asks none, listed tools always ask", () => {
    const { a } = assembler([]);
    const asks = (approval: Record<string, unknown>) => a.forChat(define({ tools: ["big", "rm", "risky"], approval }), runtime()).registry.list().filter((t) => t.needsApproval).map((t) => t.name);
    expect(asks({})).toEqual(["risky"]);
    expect(asks({ policy: "always" })).toEqual(["rm", "risky"]);
    expect(asks({ policy: "never" })).toEqual([]);
    expect(asks({ policy: "never", tools: ["big"] })).toEqual(["big"]);
  });

  it("limits: a tool result over tool_result_limit is cut and saved to disk; a tool over tool_timeout_seconds is cut off", async () => {
    const { a, provider, overflowDir } = assembler([call("big"), call("slow"), { text: "done" }]);
    const agent = a.forChat(define({ tools: ["big", "slow"], limits: { tool_result_limit: 1_000, tool_timeout_seconds: 0.1, max_iterations: 5 } }), runtime());
    const started = Date.now();
    const outcome = await agent.run("go", { sessionId: "s1" });
    expect(outcome.status).toBe("finished");
    expect(Date.now() - started).toBeLessThan(1_500);
    const tools = provider.requests[2].messages.filter((m) => m.role === "tool");
    expect(tools[0].content.length).toBeLessThan(1_500);
    expect(tools[0].content).toContain("characters elided");
    expect(readdirSync(path.join(overflowDir, "s1")).length).toBe(1);
    expect(tools[1].content).toMatch(/<tool_timeout>Tool slow did not finish/);
  });

  it("the result limit is the outermost tool interceptor: an extension's rewrite of a result is capped too", async () => {
    // Spec order ToolResultLimit → ControlDrain → LlmCancel → (extensions, app) → timeout: the model never
    // reads more than tool_result_limit, whatever an inner interceptor returns.
    class Inflate extends Extension {
      readonly name = "inflate";
      onAfterToolExecute(ctx: ExtensionContextFor<"AFTER_TOOL_EXECUTE">) {
        const result = ctx.get("toolResult")!;
        return { ...result, content: `${result.content}\n${"y".repeat(20_000)}` };
      }
    }
    const extensions = new ExtensionManager();
    extensions.register(new Inflate());
    const { a, provider, overflowDir } = assembler([call("big"), { text: "done" }], extensions);
    const agent = a.forChat(define({ tools: ["big"], limits: { tool_result_limit: 1_000 } }), runtime());
    expect((await agent.run("go", { sessionId: "s2" })).status).toBe("finished");
    const tool = provider.requests[1].messages.find((m) => m.role === "tool")!;
    expect(tool.content.length).toBeLessThan(1_500);
    expect(tool.content).toContain("characters elided");
    const saved = readdirSync(path.join(overflowDir, "s2"));
    expect(saved.length).toBe(1);
    expect(readFileSync(path.join(overflowDir, "s2", saved[0]), "utf8")).toContain("y".repeat(20_000));
  });

  it("max_iterations ends a turn that keeps calling tools", async () => {
    const { a } = assembler(() => call("rm"));
    const outcome = await a.forChat(define({ tools: ["rm"], limits: { max_iterations: 2 }, hooks: { loop_detection: false } }), runtime()).run("go", { sessionId: "s2" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("max_iterations");
  });

  it("loop_detection thresholds: with a window of 3 the guard warns at round 3 and stops at round 4, inside max_iterations 8", async () => {
    const tuned = assembler(() => call("rm"));
    const agent = tuned.a.forChat(define({ tools: ["rm"], limits: { max_iterations: 8 }, hooks: { loop_detection: { window: 3, observation_rounds: 1 } } }), runtime());
    const outcome = await agent.run("go", { sessionId: "s3" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("loop_detected");
    expect(tuned.provider.requests).toHaveLength(4);
    expect(JSON.stringify(tuned.provider.requests[3].messages)).toContain("repeated the same tool call 3 times");
    // The default window (10) never fires inside 8 iterations: the limit ends the turn instead.
    const plain = assembler(() => call("rm"));
    const ended = await plain.a.forChat(define({ tools: ["rm"], limits: { max_iterations: 8 } }), runtime()).run("go", { sessionId: "s4" });
    expect(ended.status === "finished" && ended.result.stopReason).toBe("max_iterations");
  });

  it("an agent node naming a definition runs it: its instructions before the node's, its tools, limits and model", async () => {
    const { a, provider, seen } = assembler([call("big"), { toolCalls: [{ name: "deliver", args: { content: "ok" } }] }, { text: "done" }]);
    const definition = define({ tools: ["big"], model: "m3", limits: { tool_result_limit: 1_000 } });
    const registry = createBuiltinNodeRegistry().register(
      createAgentNodeType({
        provider: () => provider,
        tools: catalog().all(),
        agents: (name) => (name === "a" ? namedDefaultsOf(definition) : null),
        assemble: (parts) => a.forNode(parts),
      }),
    );
    const { graph } = new GraphSpecCompiler(registry).compile({
      name: "g",
      nodes: [{ name: "n", node_type: "agent", config: { agent: "a", instructions: "Here, summarise." } }],
      edges: [{ from: "__start__", to: "n" }, { from: "n", to: "__end__" }],
    });
    const { result } = await graph.invoke("input");
    expect(result.result.map((p) => p.content)).toEqual(["ok"]);
    expect(seen).toEqual([{ model: "m3", node: "n" }]);
    const system = provider.requests[0].messages[0].content;
    expect(system.indexOf("You are A.")).toBeGreaterThan(system.indexOf("### Your Role"));
    expect(system.indexOf("Here, summarise.")).toBeGreaterThan(system.indexOf("You are A."));
    expect(provider.requests[0].tools.map((t) => t.name)).toEqual(["big", "deliver", ...(provider.requests[0].tools.length > 2 ? ["knowledge_base"] : [])]);
    expect(provider.requests[1].messages.find((m) => m.role === "tool")?.content).toContain("characters elided");
  });

  it("a node naming an unknown agent, or neither an agent nor instructions, does not compile", () => {
    const registry = createBuiltinNodeRegistry().register(createAgentNodeType({ provider: () => new ScriptedProvider([]), agents: () => null }));
    const issues = new GraphSpecCompiler(registry).validate({
      name: "g",
      nodes: [
        { name: "x", node_type: "agent", config: { agent: "ghost" } },
        { name: "y", node_type: "agent", config: {} },
      ],
      edges: [{ from: "__start__", to: "x" }, { from: "x", to: "y" }, { from: "y", to: "__end__" }],
    });
    expect(issues.map((i) => `${i.pathText}: ${i.message}`)).toEqual([
      'nodes[0].config.agent: no agent named "ghost" (config/agents, or the Agents page)',
      "nodes[1].config.instructions: set config.agent (a named agent) or config.instructions (an inline one)",
    ]);
  });
});
