import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RecordingObserver } from "../../graph/events";
import { Graph } from "../../graph/graph";
import { END, START } from "../../graph/names";
import { createBuiltinNodeRegistry } from "../../graph/spec/builtin-node-types";
import { GraphSpecCompiler } from "../../graph/spec/graph-spec-compiler";
import { isAgentError } from "../errors";
import { ScriptedProvider, type Script } from "../llm/providers/scripted-provider";
import { CONSOLIDATION_PROMPT_HEAD } from "../memory/consolidation";
import { SUMMARY_TAG } from "../memory/context-memory";
import { InMemoryContextSummaryStore } from "../memory/context-summary";
import { estimateMessagesTokens } from "../llm/token-estimate";
import { InMemorySessionMemory } from "../react/session-memory";
import { defineTool } from "../tools/tool";
import { AgentNode, type AgentNodeDeps } from "./agent-node";
import { AgentNodeConfigSchema, resolveAgentNodeConfig } from "./agent-node-config";
import { createAgentNodeType } from "./agent-node-type";

const config = (instructions: string, extra: Record<string, unknown> = {}) => resolveAgentNodeConfig(AgentNodeConfigSchema.parse({ instructions, ...extra }));

function deps(scripts: Record<string, Script>, extra: Partial<AgentNodeDeps> = {}) {
  const providers = Object.fromEntries(Object.entries(scripts).map(([node, script]) => [node, new ScriptedProvider(script)]));
  return { providers, deps: { provider: (_c, node) => providers[node], ...extra } satisfies AgentNodeDeps };
}

const deliverTo = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });

describe("AgentNode", () => {
  it("runs an agent turn on its input and routes what it delivers", async () => {
    const { providers, deps: d } = deps({
      researcher: [deliverTo("writer", "facts: the sky is blue"), { text: "done" }],
      writer: [deliverTo(END, "The sky is blue."), { text: "done" }],
    });
    const graph = new Graph({ name: "pipeline" })
      .addNode(new AgentNode("researcher", config("Find facts."), d))
      .addNode(new AgentNode("writer", config("Write the answer."), d))
      .addEdge(START, "researcher")
      .addEdge("researcher", "writer")
      .addEdge("writer", END)
      .compile();
    const { result } = await graph.invoke("Why is the sky blue?");
    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual(["The sky is blue."]);
    const writerInput = providers.writer.requests[0].messages.find((m) => m.role === "user")!;
    expect(writerInput.content).toContain("[Input from graph node 'researcher']\nfacts: the sky is blue");
    expect(writerInput.content).toMatch(/^<system-reminder>\n[\s\S]*\[Upstream Status\]\nDelivered: researcher\nNo further input is expected/);
    const system = providers.writer.requests[0].messages[0];
    expect(system.content).toContain('You are node "writer"');
    expect(system.content).toContain("### Topology");
    expect(system.content).toContain("You are here: writer");
    expect(system.content).toContain("Final Reply pattern");
    expect(system.content).toContain("Write the answer.");
    const deliver = providers.writer.requests[0].tools.find((t) => t.name === "deliver")!;
    expect(deliver.description).toContain("You are node: writer");
    expect(deliver.description).toContain(END);
  });

  it("retries a turn that ends without deliver (MAX_TURNS 3), then delivers", async () => {
    const { providers, deps: d } = deps({ solo: [{ text: "Here is the answer." }, deliverTo(END, "42"), { text: "ok" }] });
    const graph = new Graph().addNode(new AgentNode("solo", config("Answer."), d)).addEdge(START, "solo").addEdge("solo", END).compile();
    const { result } = await graph.invoke("?");
    expect(result.result.map((p) => p.content)).toEqual(["42"]);
    expect(providers.solo.requests[1].messages.at(-1)?.content).toContain("deliver");
  });

  it("fails the node when the agent never delivers", async () => {
    const { deps: d } = deps({ solo: () => ({ text: "I refuse." }) });
    const graph = new Graph().addNode(new AgentNode("solo", config("Answer."), d)).addEdge(START, "solo").addEdge("solo", END).compile();
    await expect(graph.invoke("?")).rejects.toSatisfy((e: unknown) => isAgentError(e) && /without calling deliver/.test((e as Error).message));
  });

  it("runs catalog tools without approval (graph nodes run as designed intent)", async () => {
    const ran: string[] = [];
    const rm = defineTool({ name: "rm", description: "", args: z.object({ path: z.string() }), needsApproval: true, execute: ({ path }) => (ran.push(path), "ok") });
    const { deps: d } = deps({ ops: [{ toolCalls: [{ name: "rm", args: { path: "/tmp/x" } }] }, deliverTo(END, "removed"), { text: "ok" }] }, { tools: [rm] });
    const graph = new Graph().addNode(new AgentNode("ops", config("Clean up.", { tools: ["rm"] }), d)).addEdge(START, "ops").addEdge("ops", END).compile();
    const { result } = await graph.invoke("clean");
    expect(ran).toEqual(["/tmp/x"]);
    expect(result.result.map((p) => p.content)).toEqual(["removed"]);
  });

  it("reports its agent's progress tagged with the instance and node", async () => {
    const events: string[] = [];
    const { deps: d } = deps({ n: [deliverTo(END, "x"), { text: "ok" }] }, { onEvent: (e) => events.push(`${e.instanceId}/${e.node}:${e.type}`) });
    const graph = new Graph().addNode(new AgentNode("n", config("x"), d)).addEdge(START, "n").addEdge("n", END).compile();
    await graph.invoke("go", { instanceId: "i1" });
    expect(events).toContain("i1/n:tool_result");
    expect(events.at(-1)).toBe("i1/n:turn_completed");
  });

  it("keeps each node's conversation across its invocations", async () => {
    const memory = new InMemorySessionMemory();
    const { providers, deps: d } = deps({ n: [deliverTo(END, "one"), { text: "ok" }, deliverTo(END, "two"), { text: "ok" }] }, { memory });
    const graph = new Graph().addNode(new AgentNode("n", config("Echo."), d)).addEdge(START, "n").addEdge("n", END).compile();
    await graph.invoke("first", { instanceId: "inst-1" });
    await graph.invoke("second", { instanceId: "inst-1" });
    const users = providers.n.requests[2].messages.filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toHaveLength(2);
    expect(users[0]).toContain("[Input from graph node '__start__']\nfirst");
    expect(users[1]).toContain("[Input from graph node '__start__']\nsecond");
  });

  it("cleans up a long turn's context as its `memory:` says: a summary in place of older steps, an activity, kept for the next invocation", async () => {
    const memory = new InMemorySessionMemory();
    const summaries = new InMemoryContextSummaryStore();
    const lookup = defineTool({ name: "lookup", description: "Looks a page up.", args: z.object({ page: z.number() }), readOnly: true, execute: ({ page }) => `page ${page}: ${"x".repeat(4_000)}` });
    let step = 0;
    const steps = [
      ...[1, 2, 3].map((page) => ({ toolCalls: [{ name: "lookup", args: { page } }] })),
      deliverTo(END, "read three pages"),
      { text: "ok" },
      deliverTo(END, "again"),
      { text: "ok" },
    ];
    const provider = new ScriptedProvider((request) => (request.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD) ? { text: "SUMMARY: pages 1 and 2 were read." } : steps[step++]));
    const d: AgentNodeDeps = { provider: () => provider, tools: [lookup], memory, summaries };
    const graph = new Graph()
      .addNode(new AgentNode("reader", config("Read pages.", { tools: ["lookup"], max_iterations: 10, memory: { max_context_tokens: 2_000, keep_recent_messages: 2 } }), d))
      .addEdge(START, "reader")
      .addEdge("reader", END)
      .compile();
    const observer = new RecordingObserver();
    const { result } = await graph.invoke("read", { instanceId: "inst-m", observer });
    expect(result.result.map((p) => p.content)).toEqual(["read three pages"]);
    const isSummary = (r: { messages: { content: string }[] }) => r.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD);
    expect(provider.requests.filter(isSummary).length).toBeGreaterThan(0);
    const chats = provider.requests.filter((r) => !isSummary(r));
    const last = chats.at(-1)!;
    // Within the turn: the request after the cleanup holds the summary and not the first page's result.
    expect(last.messages[1].content).toContain(`<${SUMMARY_TAG}>`);
    expect(last.messages[1].content).toContain("SUMMARY: pages 1 and 2 were read.");
    expect(last.messages.some((m) => m.content.startsWith("page 1:"))).toBe(false);
    expect(estimateMessagesTokens(last.messages)).toBeLessThanOrEqual(2_000);
    // The conversation itself stays whole; the summary is kept beside it, keyed by instance and node.
    expect((await memory.load("inst-m:reader")).filter((m) => m.role === "tool")).toHaveLength(4);
    expect(summaries.loadSummary("inst-m:reader")).toMatchObject({ mode: "consolidated", text: "SUMMARY: pages 1 and 2 were read." });
    const summarized = observer.events.flatMap((e) => (e.type === "node_activity" && e.activity.kind === "context_summarized" ? [e.activity] : []));
    expect(summarized.length).toBeGreaterThan(0);
    expect(summarized[0]).toMatchObject({ mode: "consolidated", text: "SUMMARY: pages 1 and 2 were read." });
    expect(summarized[0].summary).toMatch(/^context summarized: \d+ older messages?, ~\d+ → ~\d+ tokens$/);

    // The next invocation starts from the stored summary: its first request holds it, not the old pages.
    const before = provider.requests.length;
    await graph.invoke("again", { instanceId: "inst-m" });
    const next = provider.requests.slice(before).find((r) => !isSummary(r))!;
    expect(next.messages[1].content).toContain(`<${SUMMARY_TAG}>`);
    expect(next.messages.some((m) => m.content.startsWith("page 1:"))).toBe(false);
  });

  it("sends the whole conversation when the node's memory cleanup is off", async () => {
    const lookup = defineTool({ name: "lookup", description: "", args: z.object({}), readOnly: true, execute: () => "y".repeat(8_000) });
    const { providers, deps: d } = deps({ n: [{ toolCalls: [{ name: "lookup", args: {} }] }, { toolCalls: [{ name: "lookup", args: {} }] }, deliverTo(END, "done"), { text: "ok" }] }, { tools: [lookup], summaries: new InMemoryContextSummaryStore() });
    const graph = new Graph().addNode(new AgentNode("n", config("Go.", { tools: ["lookup"], memory: { enabled: false, max_context_tokens: 500 } }), d)).addEdge(START, "n").addEdge("n", END).compile();
    await graph.invoke("go");
    expect(providers.n.requests.some((r) => r.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD))).toBe(false);
    expect(providers.n.requests.at(-1)!.messages.filter((m) => m.role === "tool" && m.name === "lookup")).toHaveLength(2);
  });

  it("keeps re-offered (CONSUMED_PENDING) input: a turn cut short by a crash saved nothing of it", () => {
    const { deps: d } = deps({});
    const node = new AgentNode("n", config("x"), d);
    const row = (status: "PENDING" | "CONSUMED_PENDING") => ({ deliverId: status, sourceNode: "a", content: status, status }) as never;
    expect(node.integrate([row("PENDING"), row("CONSUMED_PENDING")]).map((r) => r.content)).toEqual(["PENDING", "CONSUMED_PENDING"]);
  });
});

describe("the agent node type", () => {
  it("compiles from a graph spec and runs", async () => {
    const { deps: d } = deps({ answer: [deliverTo(END, "hello from a spec"), { text: "ok" }] });
    const registry = createBuiltinNodeRegistry().register(createAgentNodeType(d));
    const { graph } = new GraphSpecCompiler(registry).compile({
      name: "spec-agent",
      nodes: [{ name: "answer", node_type: "agent", config: { instructions: "Say hello." } }],
      edges: [{ from: START, to: "answer" }, { from: "answer", to: END }],
    });
    const { result } = await graph.invoke("hi");
    expect(result.result.map((p) => p.content)).toEqual(["hello from a spec"]);
  });

  it("reports unknown tool names at compile time", () => {
    const registry = createBuiltinNodeRegistry().register(createAgentNodeType(deps({}).deps));
    const issues = new GraphSpecCompiler(registry).validate({
      name: "bad",
      nodes: [{ name: "a", node_type: "agent", config: { instructions: "x", tools: ["nope"] } }],
      edges: [{ from: START, to: "a" }, { from: "a", to: END }],
    });
    expect(issues.map((i) => i.message).join(" ")).toContain('no tool named "nope"');
  });
});

describe("the shared knowledge base of agent nodes", () => {
  const workspaces: string[] = [];
  afterEach(() => workspaces.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const workspace = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "modex-agent-kb-"));
    workspaces.push(dir);
    return dir;
  };
  const kbCall = (args: Record<string, unknown>) => ({ toolCalls: [{ name: "knowledge_base", args }] });

  it("what one node records, the next sees at its turn start; the changelog names the writer", async () => {
    const ws = workspace();
    const { providers, deps: d } = deps(
      {
        researcher: [kbCall({ action: "write", pattern: "findings", content: "- the sky scatters blue light" }), deliverTo("writer", "see findings"), { text: "done" }],
        writer: [deliverTo(END, "Rayleigh scattering."), { text: "done" }],
      },
      { knowledge: { workspace: ws } },
    );
    const graph = new Graph()
      .addNode(new AgentNode("researcher", config("Research."), d))
      .addNode(new AgentNode("writer", config("Write."), d))
      .addEdge(START, "researcher")
      .addEdge("researcher", "writer")
      .addEdge("writer", END)
      .compile();
    const { result } = await graph.invoke("Why is the sky blue?", { instanceId: "kb-run-1" });
    expect(result.result.map((p) => p.content)).toEqual(["Rayleigh scattering."]);
    const reminder = providers.writer.requests[0].messages.find((m) => m.content.includes("<knowledge_base>"));
    expect(reminder?.content).toContain("- the sky scatters blue light");
    expect(providers.writer.requests[0].tools.map((t) => t.name)).toContain("knowledge_base");
    expect(providers.writer.requests[0].messages[0].content).toContain("knowledge base shared by every node");
    const log = readFileSync(path.join(ws, ".modex/graphs/instances/kb-run-1/changelog.md"), "utf8");
    expect(log).toMatch(/· researcher · append findings/);
  });

  it("a node that must write gets one more attempt when its turn wrote nothing", async () => {
    const ws = workspace();
    const { providers, deps: d } = deps(
      { n: [deliverTo(END, "answer"), { text: "done" }, kbCall({ action: "write", pattern: "decisions", content: "answered directly" }), { text: "recorded" }] },
      { knowledge: { workspace: ws } },
    );
    const graph = new Graph()
      .addNode(new AgentNode("n", config("Answer, and record your decision.", { knowledge: { require_write: true } }), d))
      .addEdge(START, "n")
      .addEdge("n", END)
      .compile();
    const { result } = await graph.invoke("?", { instanceId: "kb-run-2" });
    expect(result.result.map((p) => p.content)).toEqual(["answer"]);
    expect(providers.n.requests[2].messages.at(-1)?.content).toContain("must use the shared knowledge base");
    expect(readFileSync(path.join(ws, ".modex/graphs/instances/kb-run-2/decisions.md"), "utf8")).toBe("answered directly\n");
  });

  it("the nudge comes once: a node that still does not write ends its turn (no loop)", async () => {
    const { providers, deps: d } = deps({ n: [deliverTo(END, "answer"), { text: "done" }, { text: "I will not." }] }, { knowledge: { workspace: workspace() } });
    const graph = new Graph()
      .addNode(new AgentNode("n", config("x", { knowledge: { require_read: true, require_write: true } }), d))
      .addEdge(START, "n")
      .addEdge("n", END)
      .compile();
    const { result } = await graph.invoke("?", { instanceId: "kb-run-4" });
    expect(result.result.map((p) => p.content)).toEqual(["answer"]);
    expect(providers.n.requests).toHaveLength(3);
    expect(providers.n.requests[2].messages.at(-1)?.content).toContain("read it and record what you found in it");
  });

  it("an agent with only read-only tools may read and list, nothing more", async () => {
    const look = defineTool({ name: "look", description: "", args: z.object({}), readOnly: true, execute: () => "seen" });
    const { providers, deps: d } = deps({ r: [deliverTo(END, "ok"), { text: "done" }] }, { knowledge: { workspace: workspace() }, tools: [look] });
    const graph = new Graph().addNode(new AgentNode("r", config("Review.", { tools: ["look"] }), d)).addEdge(START, "r").addEdge("r", END).compile();
    await graph.invoke("x", { instanceId: "kb-run-3" });
    const kb = providers.r.requests[0].tools.find((t) => t.name === "knowledge_base")!;
    expect((kb.parameters as { properties: { action: { enum: string[] } } }).properties.action.enum).toEqual(["read", "ls"]);
  });
});
