import { afterEach, describe, expect, it } from "vitest";
import { InMemoryControlChannel } from "@/server/agent/control/in-memory-control-channel";
import { createAgentNodeType } from "@/server/agent/graph-node/agent-node-type";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { InMemorySessionMemory } from "@/server/agent/react/session-memory";
import { everythingConfig } from "@/server/agent/tools/mcp/mcp-test-servers";
import { createBuiltinNodeRegistry } from "@/server/graph/spec/builtin-node-types";
import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { AgentAssembler, namedDefaultsOf } from "./agent-assembly";
import { AgentDefinitionSchema } from "./agent-definition";
import { validateAgentYaml } from "./agent-yaml";
import { createBuiltinToolCatalog } from "./builtin-tool-catalog";
import { McpServers } from "./mcp-servers";

const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

function setup(script: Script = []) {
  const mcp = new McpServers([everythingConfig(), everythingConfig({ name: "broken", command: "/nonexistent/mcp-server" })], { cwdBase: process.cwd() });
  open.push(mcp);
  const catalog = createBuiltinToolCatalog({ modex: () => { throw new Error("not bound"); }, fetchAllowedHosts: [] }).addSource(mcp);
  const provider = new ScriptedProvider(script);
  const assembler = new AgentAssembler({ provider: () => provider, catalog, mcp });
  return { mcp, catalog, provider, assembler };
}

const define = (extra: Record<string, unknown>) => AgentDefinitionSchema.parse({ name: "a", description: "d", instructions: "You are A.", ...extra });
const runtime = () => ({ channel: new InMemoryControlChannel(), memory: new InMemorySessionMemory(), onEvent: () => {} });
const status = (mcp: McpServers, name: string) => mcp.status().find((s) => s.name === name)!;

describe("MCP servers in the tool catalog and the assembly", () => {
  it("definitions may name a configured server's tools before it starts; listing starts nothing", () => {
    const { mcp, catalog } = setup();
    const yaml = "name: a\ndescription: d\ninstructions: i\ntools:\n  - everything__echo\n  - everything__*\n  - ghost__echo\n";
    expect(validateAgentYaml(yaml, catalog).map((i) => `${i.line}:${i.column} ${i.message}`)).toEqual([expect.stringMatching(/^7:5 no tool named "ghost__echo" in the tool catalog/)]);
    expect(catalog.names()).toEqual(expect.arrayContaining(["everything__*", "broken__*"]));
    expect(catalog.list().filter((t) => t.server)).toEqual([]);
    expect(mcp.status().map((s) => [s.name, s.state, s.transport])).toEqual([
      ["everything", "not_started", "stdio"],
      ["broken", "not_started", "stdio"],
    ]);
  });

  it("a chat agent naming everything__* starts the server at its first run, sees its tools and calls one", async () => {
    const { mcp, catalog, provider, assembler } = setup([{ toolCalls: [{ name: "everything__echo", args: { message: "hi" } }] }, { text: "done" }]);
    const agent = assembler.forChat(define({ tools: ["todo_write", "everything__*"] }), runtime());
    expect(status(mcp, "everything").state).toBe("not_started");
    const outcome = await agent.run("echo hi", { sessionId: "s1" });
    expect(outcome.status === "finished" && outcome.result.content).toBe("done");
    const offered = provider.requests[0].tools.map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(["todo_write", "everything__echo", "everything__get-sum"]));
    expect(provider.requests[0].tools.find((t) => t.name === "everything__echo")?.parameters).toMatchObject({ properties: { message: { type: "string" } }, required: ["message"] });
    expect(provider.requests[1].messages.find((m) => m.role === "tool")?.content).toBe("Echo: hi");
    expect(status(mcp, "everything")).toMatchObject({ state: "running", starts: 1 });
    // Once listed, the catalog shows its tools, with the server's read-only hint and the approval it implies.
    expect(catalog.list().find((t) => t.name === "everything__echo")).toMatchObject({ server: "everything", readOnly: true, needsApproval: false, scope: "any" });
    expect(catalog.list().find((t) => t.name === "everything__get-sum")).toMatchObject({ server: "everything", needsApproval: expect.any(Boolean) });
    expect(validateAgentYaml("name: a\ndescription: d\ninstructions: i\ntools: [everything__nope]\n", catalog)).toHaveLength(1);
  });

  it("only the named tool is attached, and the chat's approval policy applies to it", async () => {
    const { assembler, provider } = setup([{ text: "ok" }]);
    const agent = assembler.forChat(define({ tools: ["everything__echo"], approval: { tools: ["everything__echo"] } }), runtime());
    await agent.run("x", { sessionId: "s2" });
    expect(provider.requests[0].tools.map((t) => t.name)).toEqual(["everything__echo"]);
    expect(agent.registry.get("everything__echo")?.needsApproval).toBe(true);
  });

  it("a server that cannot start: the agent still has the tool it names, and calling it is a tool error it reads", async () => {
    const { mcp, provider, assembler } = setup([{ toolCalls: [{ name: "broken__echo", args: { message: "x" } }] }, { text: "it is down" }]);
    const agent = assembler.forChat(define({ tools: ["broken__echo"], approval: { policy: "never" } }), runtime());
    const outcome = await agent.run("go", { sessionId: "s3" });
    expect(outcome.status === "finished" && outcome.result.content).toBe("it is down");
    expect(provider.requests[1].messages.find((m) => m.role === "tool")?.content).toMatch(/^MCP_SERVER_DOWN: MCP server "broken" is down: could not start: .*ENOENT/);
    expect(status(mcp, "broken")).toMatchObject({ state: "failed", reason: expect.stringContaining("ENOENT") });
  });

  it("an agent node whose named agent lists an MCP tool calls it in a graph run", async () => {
    const { provider, assembler, catalog } = setup([
      { toolCalls: [{ name: "everything__get-sum", args: { a: 2, b: 40 } }] },
      { toolCalls: [{ name: "deliver", args: { content: "the sum is 42" } }] },
      { text: "delivered" },
    ]);
    const definition = define({ tools: ["everything__get-sum"] });
    const registry = createBuiltinNodeRegistry().register(
      createAgentNodeType({ provider: () => provider, tools: catalog.all(), agents: (n) => (n === "a" ? namedDefaultsOf(definition) : null), assemble: (parts) => assembler.forNode(parts) }),
    );
    const { graph } = new GraphSpecCompiler(registry).compile({
      name: "g",
      nodes: [{ name: "n", node_type: "agent", config: { agent: "a" } }],
      edges: [{ from: "__start__", to: "n" }, { from: "n", to: "__end__" }],
    });
    const { result } = await graph.invoke("add 2 and 40");
    expect(result.result.map((p) => p.content)).toEqual(["the sum is 42"]);
    expect(provider.requests[1].messages.find((m) => m.role === "tool")?.content).toMatch(/42/);
  });
});
