import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { isPromise } from "@/server/graph/awaitable";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { createAppServices, type AppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { EXAMPLE_AGENTS_DIR, EXAMPLE_SPECS_DIR, TEST_TOKEN } from "../testing/test-services";

const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });
const note = (content: string) => ({ toolCalls: [{ name: "knowledge_base", args: { action: "write", pattern: "findings", content } }] });

/** Release-notes on scripted models: the drafter records a finding and delivers; the publisher's delivery waits for approval. */
function servicesOn(temp: TempDatabase): AppServices {
  const scripts: Record<string, () => Script> = {
    drafter: () => [note("the run's input: a private detail"), deliver("publisher", "- fixed a bug"), { text: "sent" }],
    publisher: () => [deliver("__end__", "Release notes: fixed a bug."), { text: "published" }],
  };
  const provider: AgentNodeDeps["provider"] = (_config, node) => new ScriptedProvider(scripts[node]());
  const services = createAppServices({
    db: temp.db,
    auth: new AuthService(TEST_TOKEN),
    heartbeatMs: 0,
    agents: { agentsDir: EXAMPLE_AGENTS_DIR, provider, workspace: temp.dir },
  });
  const loaded = services.specs.loadDirectory(EXAMPLE_SPECS_DIR);
  if (isPromise(loaded)) throw new Error("SQLite loads specs synchronously");
  return services;
}

/** Rows an instance's agent nodes left, per table (their session is `<instance id>:<node>`). */
function agentRows(temp: TempDatabase, instanceId: string): Record<string, number> {
  const count = (sql: string, ...args: string[]) => (temp.db.prepare(sql).get(...args) as { n: number }).n;
  const bySession = (table: string) => count(`SELECT count(*) AS n FROM ${table} WHERE session_id LIKE ?`, `${instanceId}:%`);
  return {
    memory: count(`SELECT count(*) AS n FROM agent_node_memory WHERE instance_id = ?`, instanceId),
    spans: bySession("agent_spans"),
    approvals: bySession("agent_approvals"),
    snapshots: bySession("agent_turn_snapshots"),
  };
}

describe("deleting an instance deletes what its agent nodes kept", () => {
  it("their memory, traces, approvals, suspended turn and the run's knowledge base go; another instance's stay", async () => {
    using temp = new TempDatabase();
    const services = servicesOn(temp);
    const deleted = (await services.orchestrator.create({ spec: "release-notes", input: "fixed a bug" })).instanceId;
    const kept = (await services.orchestrator.create({ spec: "release-notes", input: "fixed a bug" })).instanceId;
    for (const id of [deleted, kept]) await services.orchestrator.settled(id);
    // Both wait for the publisher's approval: each has a conversation, spans, the approval and the frozen turn.
    for (const id of [deleted, kept]) {
      expect((await services.orchestrator.coordinator.instances.load(id))?.status).toBe("paused");
      expect(Object.values(agentRows(temp, id)).every((n) => n > 0)).toBe(true);
    }
    const knowledge = (id: string) => path.join(temp.dir, ".modex", "graphs", "instances", id);
    expect(services.agentRuns.knowledge(deleted).files.find((f) => f.pattern === "findings")?.text).toContain("a private detail");

    await services.control.delete(deleted);

    expect(agentRows(temp, deleted)).toEqual({ memory: 0, spans: 0, approvals: 0, snapshots: 0 });
    expect(existsSync(knowledge(deleted))).toBe(false);
    expect(Object.values(agentRows(temp, kept)).every((n) => n > 0)).toBe(true);
    expect(existsSync(knowledge(kept))).toBe(true);
    services.recovery.stop();
    await services.orchestrator.drainAll();
  });
});
