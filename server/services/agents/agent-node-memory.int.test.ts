import { describe, expect, it } from "vitest";
import { CONSOLIDATION_PROMPT_HEAD } from "@/server/agent/memory/consolidation";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { TEST_TOKEN } from "../testing/test-services";

const SPEC = `name: long-reader
version: "1"
nodes:
  - name: reader
    node_type: agent
    config:
      instructions: Read the notes, then hand the answer on.
      memory: { max_context_tokens: 3000 }
edges:
  - { from: __start__, to: reader }
  - { from: reader, to: __end__ }
`;

/** Memory cleanup of an agent node through the app's assembly, on SQLite: the summary row, the span, the activity. */
describe("agent node memory cleanup in the app", () => {
  it("a node whose input breaks its budget gets it summarized: kept in agent_node_memory, a memory cleanup span, a context_summarized activity", async () => {
    using temp = new TempDatabase();
    let step = 0;
    const steps = [{ toolCalls: [{ name: "knowledge_base", args: { action: "read", pattern: "findings" } }] }, { toolCalls: [{ name: "deliver", args: { target: "__end__", content: "read" } }] }, { text: "done" }];
    const model = new ScriptedProvider((r) => (r.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD) ? { text: "The input asked to read the notes." } : steps[step++]));
    const services = createAppServices({ db: temp.db, auth: new AuthService(TEST_TOKEN), heartbeatMs: 0, agents: { provider: () => model, workspace: temp.dir } });
    await services.specs.save(SPEC);
    const { instanceId } = await services.orchestrator.create({ spec: "long-reader", input: "notes ".repeat(3_000) });
    await services.orchestrator.settled(instanceId);
    expect((await services.orchestrator.coordinator.instances.load(instanceId))?.status).toBe("completed");

    const chats = model.requests.filter((r) => !r.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD));
    expect(chats.at(-1)!.messages[1].content).toContain("The input asked to read the notes.");
    const row = temp.db.prepare(`SELECT summary FROM agent_node_memory WHERE session_id = ?`).get(`${instanceId}:reader`) as { summary: string };
    expect(JSON.parse(row.summary)).toMatchObject({ mode: "consolidated", text: "The input asked to read the notes.", coveredMessages: 1 });
    const span = temp.db.prepare(`SELECT attributes FROM agent_spans WHERE session_id = ? AND name = 'memory cleanup'`).get(`${instanceId}:reader`) as { attributes: string } | undefined;
    expect(JSON.parse(span!.attributes)).toMatchObject({ "modex.memory.mode": "consolidated", "modex.memory.covered_messages": 1 });
    const kinds = (await services.events.list(instanceId)).flatMap((e) => (e.event.type === "node_activity" ? [e.event.activity.kind] : []));
    expect(kinds.filter((k) => k === "context_summarized")).toHaveLength(1);
    services.recovery.stop();
    await services.orchestrator.drainAll();
  });
});
