import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { isAgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { AgentNode, type AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { AgentNodeConfigSchema, resolveAgentNodeConfig } from "@/server/agent/graph-node/agent-node-config";
import { MAX_NODE_CHECKPOINT_RESUMES, nodeCheckpointKey } from "@/server/agent/graph-node/node-checkpoints";
import { HookRunner } from "@/server/agent/hook/hook-runner";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { Tool } from "@/server/agent/tools/tool";
import { ScriptedProvider, type ScriptedReply } from "@/server/agent/llm/providers/scripted-provider";
import { createSpanHooks } from "@/server/agent/trace/create-span-hooks";
import { isGraphInterrupt } from "@/server/graph/errors";
import { RecordingObserver } from "@/server/graph/events";
import { Graph } from "@/server/graph/graph";
import { END, START } from "@/server/graph/names";
import { createInMemoryCoordinator } from "@/server/graph/persistence/factories";
import { HangingAfter } from "@/server/agent/testing/hanging-after";
import { fetchTool } from "../chat/testing/chat-fixtures";
import { describeOnBothDatabases, until, type CrashBackend } from "./testing/node-crash-backends";

/**
 * The rules for a turn that goes on after an approval decision (a tool call asked, a person approved,
 * the node's next invocation resumed the turn at TOOL) and is then cut by a crash:
 * - that leg saves an iteration checkpoint after each step, under a key of its own (its inputs include
 *   the decision's deliver row: the first leg's key is another);
 * - the invocation a recovery runs in its place finds it and goes on from it: the decision is not applied
 *   again, and no tool before the checkpoint runs again (the approved one included);
 * - the resumes count towards the turn's MAX_NODE_CHECKPOINT_RESUMES, then the node fails;
 * - the checkpoint is deleted when the turn ends;
 * - a leg cut before its first checkpoint (while the approved call ran) goes on from the decision again.
 */

const GATED = "https://gated.example";

/** The first leg: a delivery, and the gated fetch, which asks approval (the run suspends). */
const ASKS: ScriptedReply = {
  text: "Handing on what I know, and I need the gated page. ",
  toolCalls: [
    { name: "deliver", args: { content: "part zero" } },
    { name: "fetch", args: { url: GATED } },
  ],
};
/** The resumed leg's first model call, after the approved fetch ran: a free fetch and a first delivery. */
const STEP_TWO: ScriptedReply = {
  text: "Fetching more, and handing on the first part. ",
  toolCalls: [
    { name: "fetch", args: { url: "https://a.example" } },
    { name: "deliver", args: { content: "part one" } },
  ],
};

/** `stallApprovedCall`: the first process dies while the approved call runs (before the leg's first checkpoint). */
function harness(b: CrashBackend, options: { stallApprovedCall?: boolean } = {}) {
  const { tool: fetch, fetched } = fetchTool();
  let stall = options.stallApprovedCall === true;
  let stalled = false;
  const tool: Tool = {
    ...fetch,
    execute: async (args, ctx) => {
      const out = await fetch.execute(args as { url: string }, ctx);
      if (stall && (args as { url: string }).url === GATED) await new Promise(() => (stalled = true));
      return out;
    },
  };
  // Asks, then (after the decision) step two, then dies in the resumed leg's third model call.
  let provider: LlmProvider = new HangingAfter([ASKS, STEP_TWO]);
  let memory = b.restart();
  const deps: AgentNodeDeps = {
    provider: () => provider,
    tools: [tool],
    get memory() {
      return memory;
    },
    get approvals() {
      return { approvals: memory.approvals, snapshots: memory.snapshots };
    },
    get checkpoints() {
      return memory.checkpoints;
    },
    // The app's span hooks, writing to the running process's span table.
    hooks: () => {
      const runner = new HookRunner();
      for (const spec of createSpanHooks({ tier: "standard", sink: b.spans(), providerName: "scripted", model: "m" })) runner.register(spec);
      return runner;
    },
  };
  const config = resolveAgentNodeConfig(AgentNodeConfigSchema.parse({ instructions: "Crawl.", tools: ["fetch"], approval: { tools: [{ tool: "fetch", when: { url: GATED } }] } }));
  const graph = new Graph({ name: "crawl" }).addNode(new AgentNode("crawler", config, deps)).addEdge(START, "crawler").addEdge("crawler", END).compile();
  const coordinator = createInMemoryCoordinator();
  const crawlerRows = async (instanceId: string, status: "CONSUMED_PENDING" | "CONSUMED_COMPLETED") =>
    (await coordinator.delivers.listByStatus(instanceId, [status])).filter((r) => r.targetNode === "crawler");
  return {
    fetched,
    coordinator,
    crawlerRows,
    /**
     * Starts the run, which suspends on the gated fetch; approves it, and the process dies in the resumed
     * leg's second model call after the approved call's step (1) and step two (its fetch and delivery).
     */
    async approveAndCrash(): Promise<{ instanceId: string; firstLegKey: string }> {
      const dying = provider as HangingAfter;
      const rec = await coordinator.instances.create({ graphName: graph.name, nodeIdMap: graph.nodeIdMap, input: { content: "crawl" } });
      const suspended = await graph.run(graph.createContext({ coordinator, input: "crawl", instanceId: rec.instanceId })).catch((e: unknown) => e);
      expect(isGraphInterrupt(suspended)).toBe(true);
      const request = (suspended as { value: unknown }).value;
      if (!isAgentApprovalRequest(request)) throw new Error("an approval request expected");
      const firstLegKey = nodeCheckpointKey(rec.instanceId, "crawler", await crawlerRows(rec.instanceId, "CONSUMED_PENDING"))!;
      await b.settle();
      const state = (await coordinator.instances.loadState(rec.instanceId)) as never; // its resume target: crawler
      void graph.resume(graph.createContext({ coordinator, input: "crawl", instanceId: rec.instanceId, state }), { transactionId: request.transactionId, approved: true });
      await until(() => dying.hung || stalled);
      await b.settle();
      return { instanceId: rec.instanceId, firstLegKey };
    },
    /** A restart: new memory connections, the run recovered with `next` as the model. */
    async recover(instanceId: string, next: LlmProvider) {
      provider = next;
      stall = false;
      memory = b.restart();
      await coordinator.instances.transition(instanceId, "crashed");
      const observer = new RecordingObserver();
      // The state a durable ledger stored with the entry node's completion (the in-memory one keeps none):
      // the decision routed, no resume target left.
      const run = graph.run(graph.createContext({ coordinator, input: "crawl", instanceId, observer }), "recovery");
      return { run, observer };
    },
    memory: () => memory,
    spans: () => b.spans(),
  };
}

const activitiesOf = (observer: RecordingObserver) => observer.events.flatMap((e) => (e.type === "node_activity" ? [e.activity] : []));

function approvalLegTests(backend: () => CrashBackend): void {
  it("the resumed leg checkpoints under a key of its own: the one of its inputs, with the decision's row", async () => {
    const h = harness(backend());
    const { instanceId, firstLegKey } = await h.approveAndCrash();
    const rows = await h.crawlerRows(instanceId, "CONSUMED_PENDING");
    const key = nodeCheckpointKey(instanceId, "crawler", rows)!;
    expect(key).not.toBe(firstLegKey);
    expect(await h.memory().checkpoints.load(firstLegKey)).toBeUndefined();
    // The last finished step of the turn: the approved call's (1), then step two.
    expect((await h.memory().checkpoints.load(key))?.turn.iteration).toBe(2);
    expect(h.fetched).toEqual([GATED, "https://a.example"]);
  });

  it("a recovery goes on from the resumed leg's checkpoint: the decision is not applied again, no tool runs again, the delivery is routed once", async () => {
    const h = harness(backend());
    const { instanceId } = await h.approveAndCrash();
    const after = new ScriptedProvider([{ text: "Read both.", toolCalls: [{ name: "deliver", args: { content: "part two" } }] }, { text: "Delivered." }]);
    const { run, observer } = await h.recover(instanceId, after);
    const result = await run;

    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual(["part zero", "part one", "part two"]);
    expect(h.fetched).toEqual([GATED, "https://a.example"]);
    // The resumed turn's first model call reads both steps whole: the approved call's and step two.
    expect(after.requests[0].messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant", "tool", "tool"]);
    const activities = activitiesOf(observer);
    expect(activities.map((a) => a.kind)).not.toContain("turn_started");
    expect(activities.map((a) => a.kind)).not.toContain("approval_decided");
    expect(activities.find((a) => a.kind === "turn_resumed")).toMatchObject({ step: 2, resumes: 1, summary: expect.stringMatching(/^resumed after a restart, from the end of step 2/) });
    // The trace says where the turn picked up, twice: after the decision, then after the restart.
    const root = (await h.spans().recentForSession(`${instanceId}:crawler`)).find((s) => s.parentSpanId === undefined)!;
    const trace = await h.spans().trace(root.traceId);
    expect(trace.filter((s) => s.name.startsWith("resumed")).map((s) => [s.name, s.parentSpanId])).toEqual([
      ["resumed after the approval decision, in step 1", root.spanId],
      ["resumed after a restart, from the end of step 2", root.spanId],
    ]);
    expect(root.status).toEqual({ code: "ok" });
    const crawler = (await h.coordinator.nodes.listByInstance(instanceId)).filter((i) => i.nodeName === "crawler").map((i) => i.status);
    expect(crawler.slice(-2)).toEqual(["CRASHED", "COMPLETED"]);
    // The checkpoint went with the turn's end.
    const inputs = await h.crawlerRows(instanceId, "CONSUMED_COMPLETED");
    expect(await h.memory().checkpoints.load(nodeCheckpointKey(instanceId, "crawler", inputs)!)).toBeUndefined();
  });

  it("a leg cut while the approved call ran (no checkpoint yet) goes on from the decision again: that call runs again, no model call does", async () => {
    const h = harness(backend(), { stallApprovedCall: true });
    const { instanceId } = await h.approveAndCrash();
    expect(h.fetched).toEqual([GATED]);
    const after = new ScriptedProvider([STEP_TWO, { text: "Read both.", toolCalls: [{ name: "deliver", args: { content: "part two" } }] }, { text: "Delivered." }]);
    const { run, observer } = await h.recover(instanceId, after);
    const result = await run;

    expect(result.status).toBe("completed");
    expect(result.result.map((p) => p.content)).toEqual(["part zero", "part one", "part two"]);
    // At least once, as any tool cut mid-way: the approved call again, then the turn goes on at TOOL.
    expect(h.fetched).toEqual([GATED, GATED, "https://a.example"]);
    expect(after.requests[0].messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(activitiesOf(observer).find((a) => a.kind === "approval_decided")).toMatchObject({ approved: true, summary: "approved (applied again: the leg it resumed was cut short)" });
    expect(activitiesOf(observer).map((a) => a.kind)).not.toContain("turn_resumed");
  });

  it(`a resumed leg that keeps dying is resumed ${MAX_NODE_CHECKPOINT_RESUMES} times, then the node fails saying so (no tool repeated)`, async () => {
    const h = harness(backend());
    const { instanceId } = await h.approveAndCrash();
    for (let resume = 1; resume <= MAX_NODE_CHECKPOINT_RESUMES; resume++) {
      const dying = new HangingAfter([]);
      const { observer } = await h.recover(instanceId, dying);
      await until(() => dying.hung);
      expect(activitiesOf(observer)).toEqual([expect.objectContaining({ kind: "turn_resumed", resumes: resume, step: 2 })]);
      await sleep(20); // the raised count is committed (SQLite: at the next macrotask)
    }
    const last = new ScriptedProvider([]);
    const { run } = await h.recover(instanceId, last);
    await expect(run).rejects.toThrow(/again after 2 resumes from its last checkpoint: it is not resumed again/);
    expect(last.requests).toHaveLength(0);
    expect(h.fetched).toEqual([GATED, "https://a.example"]);
    expect((await h.coordinator.nodes.listByInstance(instanceId)).map((i) => i.status).slice(-1)).toEqual(["FAILED"]);
    const rows = await h.crawlerRows(instanceId, "CONSUMED_PENDING");
    expect(await h.memory().checkpoints.load(nodeCheckpointKey(instanceId, "crawler", rows)!)).toBeUndefined();
  });
}

describeOnBothDatabases("a turn resumed by an approval checkpoints its steps", approvalLegTests);
