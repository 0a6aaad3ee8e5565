import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { AgentNode, type AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { AgentNodeConfigSchema, resolveAgentNodeConfig } from "@/server/agent/graph-node/agent-node-config";
import { MAX_NODE_CHECKPOINT_RESUMES, nodeCheckpointKey } from "@/server/agent/graph-node/node-checkpoints";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import { ScriptedProvider, type ScriptedReply } from "@/server/agent/llm/providers/scripted-provider";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { RecordingObserver } from "@/server/graph/events";
import { createInMemoryCoordinator } from "@/server/graph/persistence/factories";
import { HangingAfter } from "@/server/agent/testing/hanging-after";
import { fetchTool } from "../chat/testing/chat-fixtures";
import { describeOnBothDatabases, until, type CrashBackend } from "./testing/node-crash-backends";

/**
 * An agent node's turn cut by a crash after a finished iteration resumes from its checkpoint when the
 * run is recovered (testing/node-crash-backends.ts: real checkpoint stores, an in-memory ledger whose
 * crashed run never returns). A turn resumed by an approval decision: node-checkpoint-approval.int.test.ts.
 */

const STEP_ONE: ScriptedReply = {
  text: "Fetching, and handing on the first part. ",
  toolCalls: [
    { name: "fetch", args: { url: "https://a.example" } },
    { name: "deliver", args: { content: "part one" } },
  ],
};

function harness(b: CrashBackend) {
  const { tool, fetched } = fetchTool();
  let provider: LlmProvider = new HangingAfter([STEP_ONE]);
  let memory = b.restart();
  const deps: AgentNodeDeps = {
    provider: () => provider,
    tools: [tool],
    get memory() {
      return memory;
    },
    get checkpoints() {
      return memory.checkpoints;
    },
  };
  const config = resolveAgentNodeConfig(AgentNodeConfigSchema.parse({ instructions: "Crawl.", tools: ["fetch"] }));
  const graph = new Graph({ name: "crawl" }).addNode(new AgentNode("crawler", config, deps)).addEdge(START, "crawler").addEdge("crawler", END).compile();
  const coordinator = createInMemoryCoordinator();
  return {
    fetched,
    coordinator,
    /** Starts the run; its process dies during the second model call (after the first step's checkpoint). */
    async startAndCrash(): Promise<string> {
      const dying = provider as HangingAfter;
      const rec = await coordinator.instances.create({ graphName: graph.name, nodeIdMap: graph.nodeIdMap, input: { content: "crawl a" } });
      void graph.run(graph.createContext({ coordinator, input: "crawl a", instanceId: rec.instanceId }));
      await until(() => dying.hung);
      await b.settle();
      return rec.instanceId;
    },
    /** A restart: new memory connections, the run recovered with `next` as the model. */
    async recover(instanceId: string, next: LlmProvider) {
      provider = next;
      memory = b.restart();
      await coordinator.instances.transition(instanceId, "crashed");
      const observer = new RecordingObserver();
      const run = graph.run(graph.createContext({ coordinator, input: "crawl a", instanceId, observer }), "recovery");
      return { run, observer };
    },
    memory: () => memory,
  };
}

function resumeTests(backend: () => CrashBackend): void {
  it("resumes the cut turn from its checkpoint: the tool does not run again, the delivery before it is routed once, a notice says so", async () => {
    const h = harness(backend());
    const instanceId = await h.startAndCrash();
    const after = new ScriptedProvider([{ text: "Read it.", toolCalls: [{ name: "deliver", args: { content: "part two" } }] }, { text: "Delivered." }]);
    const { run, observer } = await h.recover(instanceId, after);
    const result = await run;

    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual(["part one", "part two"]);
    expect(h.fetched).toEqual(["https://a.example"]);
    // The resumed turn's first model call reads the first step whole: input, the calls, both results.
    expect(after.requests[0].messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    const activities = observer.events.flatMap((e) => (e.type === "node_activity" ? [e.activity] : []));
    expect(activities.map((a) => a.kind)).not.toContain("turn_started");
    expect(activities.find((a) => a.kind === "turn_resumed")).toMatchObject({ step: 1, resumes: 1, summary: expect.stringMatching(/^resumed after a restart, from the end of step 1/) });
    // The invocation recovery ran in place of the crashed one completed; the checkpoint went with it.
    expect((await h.coordinator.nodes.listByInstance(instanceId)).filter((i) => i.nodeName === "crawler").map((i) => i.status)).toEqual(["CRASHED", "COMPLETED"]);
    const inputs = (await h.coordinator.delivers.listByStatus(instanceId, ["CONSUMED_COMPLETED"])).filter((r) => r.targetNode === "crawler");
    expect(inputs).toHaveLength(1);
    expect(await h.memory().checkpoints.load(nodeCheckpointKey(instanceId, "crawler", inputs)!)).toBeUndefined();
    const sessions = await h.memory().load(`${instanceId}:crawler`);
    expect(sessions.map((m) => m.content)).toEqual(expect.arrayContaining(["the page at https://a.example", "Delivered."]));
  });

  it(`a turn that keeps dying is resumed ${MAX_NODE_CHECKPOINT_RESUMES} times, then the node fails saying so (no tool repeated)`, async () => {
    const h = harness(backend());
    const instanceId = await h.startAndCrash();
    for (let resume = 1; resume <= MAX_NODE_CHECKPOINT_RESUMES; resume++) {
      const dying = new HangingAfter([]);
      const { observer } = await h.recover(instanceId, dying);
      await until(() => dying.hung);
      expect(observer.events.flatMap((e) => (e.type === "node_activity" ? [e.activity] : []))).toEqual([
        expect.objectContaining({ kind: "turn_resumed", resumes: resume, summary: expect.stringMatching(resume > 1 ? /^resumed after a restart \(resume 2\), from the end of step 1/ : /^resumed after a restart, from/) }),
      ]);
      await sleep(20); // the raised count is committed (SQLite: at the next macrotask)
    }
    const last = new ScriptedProvider([]);
    const { run } = await h.recover(instanceId, last);
    await expect(run).rejects.toThrow(/again after 2 resumes from its last checkpoint: it is not resumed again/);
    expect(last.requests).toHaveLength(0);
    expect(h.fetched).toEqual(["https://a.example"]);
    expect((await h.coordinator.nodes.listByInstance(instanceId)).map((i) => i.status).slice(-1)).toEqual(["FAILED"]);
  });
}

describeOnBothDatabases("agent node turns resume from their checkpoint", resumeTests);
