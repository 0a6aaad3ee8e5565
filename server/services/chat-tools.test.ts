import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { ToolExecutor } from "@/server/agent/tools/tool-executor";
import { ToolRegistry } from "@/server/agent/tools/tool-registry";
import { ChatService } from "./chat-service";
import { createChatTools, type RunGraphResult } from "./chat-tools";
import { testServices } from "./testing/test-services";

const ctx = { signal: new AbortController().signal, callId: "c1", sessionId: "s", turnId: "t" };

function tools(services: Parameters<typeof createChatTools>[0]) {
  const byName = new Map(createChatTools(services).map((t) => [t.name, t]));
  return (name: string) => byName.get(name)!;
}

describe("chat tools", () => {
  it("list_graphs and instance_status only read; run_graph needs approval", async () => {
    await using t = testServices("memory");
    const tool = tools(t.services);
    expect([tool("list_graphs"), tool("instance_status"), tool("run_graph")].map((x) => [x.name, x.needsApproval, x.readOnly ?? false])).toEqual([
      ["list_graphs", false, true],
      ["instance_status", false, true],
      ["run_graph", true, false],
    ]);
  });

  it("list_graphs names every saved spec with its node count", async () => {
    await using t = testServices("memory");
    const out = await tool(t, "list_graphs").execute({}, ctx);
    const graphs = JSON.parse(String(out)) as { name: string; nodeCount: number }[];
    expect(graphs).toContainEqual(expect.objectContaining({ name: "counter-loop", nodeCount: 3 }));
    expect(graphs.map((g) => g.name)).toContain("map-reduce");
  });

  it("run_graph starts a run through the orchestrator and names the instance; instance_status reports it", async () => {
    await using t = testServices("memory");
    const started = JSON.parse(String(await tool(t, "run_graph").execute({ name: "counter-loop" }, ctx))) as RunGraphResult;
    expect(started).toMatchObject({ graph: "counter-loop", version: 1, status: "running", url: `/instances/${started.instanceId}` });
    await t.settled(started.instanceId);
    const status = JSON.parse(String(await tool(t, "instance_status").execute({ instanceId: started.instanceId }, ctx)));
    expect(status).toMatchObject({ instanceId: started.instanceId, graph: "counter-loop", status: "completed", version: 1 });
    expect(status.result).toEqual([expect.objectContaining({ content: "counted to 5" })]);
  });

  it("errors reach the model as error results: an unknown spec or instance", async () => {
    await using t = testServices("memory");
    const executor = new ToolExecutor({ registry: new ToolRegistry(createChatTools(t.services)) });
    const turn = { sessionId: "s", turnId: "t" } as never;
    const unknownSpec = await executor.execute({ id: "c1", name: "run_graph", arguments: '{"name":"nope"}' }, turn);
    expect(unknownSpec).toMatchObject({ isError: true, content: expect.stringContaining("spec nope not found") });
    const unknownInstance = await executor.execute({ id: "c2", name: "instance_status", arguments: '{"instanceId":"404"}' }, turn);
    expect(unknownInstance).toMatchObject({ isError: true, content: expect.stringContaining("404") });
  });
});

function tool(t: { services: Parameters<typeof createChatTools>[0] }, name: string) {
  return tools(t.services)(name);
}

describe("chat tools in the chat", () => {
  it("run_graph in a chat turn: asks, and once approved starts the run and answers with its instance id", async () => {
    await using t = testServices("memory");
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "run_graph", args: { name: "counter-loop" } }] }, { text: "Started it." }]);
    const chat = new ChatService({ provider, model: "scripted", tools: createChatTools(t.services) });
    const { sessionId } = await chat.send({ message: "run counter-loop" });
    let request;
    for (let i = 0; i < 200 && !request; i++) {
      request = (await chat.events(sessionId)).find((e) => e.type === "approval_requested");
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(request).toMatchObject({ name: "run_graph", arguments: '{"name":"counter-loop"}' });
    expect(await t.services.instances.list()).toEqual([]);
    await chat.decide({ sessionId, transactionId: (request as { transactionId: string }).transactionId, approved: true });
    await chat.idle(sessionId);
    const result = (await chat.events(sessionId)).find((e) => e.type === "tool_result");
    const started = JSON.parse(result?.type === "tool_result" ? result.content : "{}") as RunGraphResult;
    expect((await t.settled(started.instanceId)).status).toBe("completed");
    expect((await chat.events(sessionId)).at(-1)).toMatchObject({ type: "turn_completed", content: "Started it." });
  });
});
