import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { testServices } from "../testing/test-services";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const deliver = (content: string) => ({ toolCalls: [{ name: "deliver", args: { target: "__end__", content } }] });
const spec = (config: string) =>
  ["name: guarded", "nodes:", `  - { name: solo, node_type: agent, config: ${config} }`, "edges:", "  - { from: __start__, to: solo }", "  - { from: solo, to: __end__ }"].join("\n");

/** The guards every agent gets from the one assembly, seen through the app's services (graph nodes). */
describe("an agent node's guards, through the app", () => {
  it("a tool result over the agent's limit is cut for the model and saved whole to disk, the path in its tool_result event", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "modex-guards-"));
    dirs.push(workspace);
    const big = Array.from({ length: 400 }, (_, i) => `- finding number ${i} with some words`).join("\n");
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "knowledge_base", args: { action: "write", pattern: "findings", content: big } }] },
      { toolCalls: [{ name: "knowledge_base", args: { action: "read", pattern: "findings", limit: 1000 } }] },
      deliver("read it"),
      { text: "done" },
    ]);
    await using t = testServices("sqlite", { provider: () => provider, workspace });
    await t.services.specs.save(spec("{ instructions: Read the findings., tool_result_limit: 1000 }"));
    const { instanceId } = await t.services.orchestrator.create({ spec: "guarded", input: "go" });
    expect((await t.settled(instanceId)).status).toBe("completed");
    const result = (await t.services.events.list(instanceId, { limit: 10_000 })).flatMap((e) => (e.event.type === "node_activity" && e.event.activity.kind === "tool_result" ? [e.event.activity] : []))[1];
    expect(typeof result.overflowPath).toBe("string");
    expect(readFileSync(String(result.overflowPath), "utf8")).toContain("finding number 399");
    expect(provider.requests[2].messages.at(-1)?.content.length).toBeLessThan(2_000);
  });

  it("loop detection stops an agent repeating the same call, and the node fails saying so", async () => {
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: "todo_write", args: { todos: [{ content: "same", status: "pending" }] } }] }));
    await using t = testServices("sqlite", { provider: () => provider });
    await t.services.specs.save(spec("{ instructions: Plan., tools: [todo_write], max_iterations: 40, max_turns: 1 }"));
    const { instanceId } = await t.services.orchestrator.create({ spec: "guarded", input: "go" });
    expect((await t.settled(instanceId)).status).toBe("failed");
    const view = await t.services.instances.get({ instanceId });
    expect(view.invocations.find((i) => i.node === "solo")?.error).toContain("loop_detected");
  });

  it("current_time tells the agent the time at each turn start when its definition turns it on", async () => {
    const provider = new ScriptedProvider([deliver("ok"), { text: "done" }]);
    await using t = testServices("sqlite", { provider: () => provider });
    await t.services.specs.save(spec("{ instructions: Answer., hooks: { current_time: true } }"));
    const { instanceId } = await t.services.orchestrator.create({ spec: "guarded", input: "go" });
    expect((await t.settled(instanceId)).status).toBe("completed");
    expect(JSON.stringify(provider.requests[0].messages)).toMatch(/Current time: \d{4}-\d{2}-\d{2}T/);
  });
});
