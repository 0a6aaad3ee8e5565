import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isPromise } from "@/server/graph/awaitable";
import { describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { isAgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { createAppServices, type AppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { TEST_TOKEN, EXAMPLE_AGENTS_DIR, EXAMPLE_SPECS_DIR } from "../testing/test-services";
import { waitingFor } from "../waiting-for";
import { approvalsOf } from "./approval-records";
import { SqliteAgentMemory } from "./sqlite-agent-memory";

const deliver = (target: string, content: string, text?: string) => ({ text, toolCalls: [{ name: "deliver", args: { target, content } }] });

/** App services on `temp`'s database (a second call after `temp.reopen()` is a restarted server). */
function servicesOn(temp: TempDatabase, provider: AgentNodeDeps["provider"]): AppServices {
  const services = createAppServices({
    db: temp.db,
    auth: new AuthService(TEST_TOKEN),
    heartbeatMs: 0,
    drainWaitMs: 2_000,
    agents: { agentsDir: EXAMPLE_AGENTS_DIR, provider },
  });
  const loaded = services.specs.loadDirectory(EXAMPLE_SPECS_DIR);
  if (isPromise(loaded)) throw new Error("SQLite loads specs synchronously");
  if (loaded.failed.length > 0) throw new Error(JSON.stringify(loaded.failed));
  return services;
}

function scripted(scripts: Record<string, Script>) {
  const providers = Object.fromEntries(Object.entries(scripts).map(([n, s]) => [n, new ScriptedProvider(s)]));
  return { providers, provider: ((_c, node) => providers[node]) as AgentNodeDeps["provider"] };
}

async function settledStatus(services: AppServices, instanceId: string) {
  await services.orchestrator.settled(instanceId);
  return (await services.orchestrator.coordinator.instances.load(instanceId))!;
}

async function stop(services: AppServices) {
  services.recovery.stop();
  await services.orchestrator.drainAll();
}

describe("agent nodes remember, in the database", () => {
  it("review-cycle's coder sees its last change on its next invocation, from the agent_node_memory table", async () => {
    using temp = new TempDatabase();
    const { providers, provider } = scripted({
      coder: [deliver("reviewer", "v1: add(a, b) = a - b"), { text: "sent" }, deliver("reviewer", "v2: add(a, b) = a + b"), { text: "sent" }],
      reviewer: [deliver("coder", "add subtracts: fix it"), { text: "sent back" }, deliver("__end__", "add(a, b) = a + b"), { text: "approved" }],
    });
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await settledStatus(services, instanceId)).status).toBe("completed");
    const second = providers.coder.requests[2].messages;
    // Its first turn (input, its deliver call with v1, the tool's answer) precedes the reviewer's revisions.
    expect(JSON.stringify(second)).toContain("v1: add(a, b) = a - b");
    expect(second.filter((m) => m.role === "user").length).toBe(2);
    // Committed: a fresh connection reads the conversation.
    await stop(services);
    const reopened = new SqliteAgentMemory(temp.reopen());
    const memory = reopened.loadNow(`${instanceId}:coder`);
    expect(JSON.stringify(memory)).toContain("v2: add(a, b) = a + b");
  });

  it("logs coarse agent events (turn, tool call and result, message, usage) as node_activity, not every token", async () => {
    using temp = new TempDatabase();
    const { provider } = scripted({
      drafter: [deliver("publisher", "notes v1", "Drafting the notes now, one line per change."), { text: "sent" }],
      publisher: [deliver("__end__", "Release notes v1"), { text: "published" }],
    });
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "release-notes", input: "fixed a bug" });
    await settledStatus(services, instanceId);
    const kinds = (await services.events.list(instanceId)).flatMap((e) => (e.event.type === "node_activity" && e.event.node === "drafter" ? [e.event.activity.kind] : []));
    expect(kinds).toEqual(["turn_started", "message", "tool_call", "usage", "tool_result", "message", "usage", "turn_ended"]);
    await stop(services);
  });
});

describe("approvals inside graph runs", () => {
  const script = () =>
    scripted({
      drafter: [deliver("publisher", "- fixed a bug"), { text: "sent" }],
      publisher: [deliver("__end__", "Release notes: fixed a bug.", "The draft reads well; publishing it."), { text: "published" }],
    });

  it("a tool the policy asks for suspends the instance; approve runs it and the turn goes on at TOOL (no new model call)", async () => {
    using temp = new TempDatabase();
    const { providers, provider } = script();
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "release-notes", input: "fixed a bug" });
    const paused = await settledStatus(services, instanceId);
    expect(paused.status).toBe("paused");
    const waiting = waitingFor(paused);
    expect(isAgentApprovalRequest(waiting)).toBe(true);
    if (!isAgentApprovalRequest(waiting)) return;
    expect(waiting).toMatchObject({ node: "publisher", tool: "deliver", args: expect.stringContaining("__end__"), reasoning: "The draft reads well; publishing it." });
    await expect(services.control.answer(instanceId, "yes")).rejects.toThrow(/approve or deny/);
    const calls = providers.publisher.requests.length;
    const res = await services.control.decide({ instanceId, approved: true, by: "session" });
    expect(res.command).toBe("APPROVE");
    const done = await settledStatus(services, instanceId);
    expect(done.status).toBe("completed");
    // One call after the decision: the one that reads the tool's result. The approved call was not asked again.
    expect(providers.publisher.requests.length).toBe(calls + 1);
    expect(providers.publisher.requests[calls].messages.at(-1)).toMatchObject({ role: "tool", content: "Delivered to __end__." });
    const record = approvalsOf(done)[0];
    expect(record).toMatchObject({ node: "publisher", tool: "deliver", approved: true, by: "session" });
    expect(record.at).toBeGreaterThan(0);
    const view = await services.instances.get({ instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["Release notes: fixed a bug."]);
    await stop(services);
  });

  it("deny tells the model why; its revision asks again", async () => {
    using temp = new TempDatabase();
    const { providers, provider } = scripted({
      drafter: [deliver("publisher", "- fixed a bug"), { text: "sent" }],
      publisher: [deliver("__end__", "notes v1"), deliver("__end__", "notes v2"), { text: "published" }],
    });
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "release-notes", input: "x" });
    expect((await settledStatus(services, instanceId)).status).toBe("paused");
    await services.control.decide({ instanceId, approved: false, reason: "say which bug", by: "token" });
    const again = await settledStatus(services, instanceId);
    expect(again.status).toBe("paused");
    expect(providers.publisher.requests[1].messages.at(-1)?.content).toContain("denied this deliver call: say which bug");
    await services.control.decide({ instanceId, approved: true, by: "token" });
    expect((await settledStatus(services, instanceId)).status).toBe("completed");
    const view = await services.instances.get({ instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["notes v2"]);
    await stop(services);
  });

  it("the waiting approval survives a restart: a new server on the same database approves it and the run completes", async () => {
    using temp = new TempDatabase();
    const { provider } = script();
    const first = servicesOn(temp, provider);
    const { instanceId } = await first.orchestrator.create({ spec: "release-notes", input: "fixed a bug" });
    expect((await settledStatus(first, instanceId)).status).toBe("paused");
    await stop(first);
    temp.reopen();
    const second = servicesOn(temp, provider);
    await second.recovery.pass();
    await second.control.decide({ instanceId, approved: true, by: "token" });
    expect((await settledStatus(second, instanceId)).status).toBe("completed");
    await stop(second);
  });

  it("running branches of a parallel graph finish while one waits for approval", async () => {
    using temp = new TempDatabase();
    const { provider } = scripted({
      gated: [deliver("__end__", "gated result"), { text: "done" }],
      free: [deliver("__end__", "free result"), { text: "done" }],
    });
    const services = servicesOn(temp, provider);
    await services.specs.save(
      [
        "name: two-branches",
        "scheduler: parallel",
        "nodes:",
        "  - { name: gated, node_type: agent, config: { instructions: Answer., approval: { tools: [deliver] } } }",
        "  - { name: free, node_type: agent, config: { instructions: Answer. } }",
        "edges:",
        "  - { from: __start__, to: gated }",
        "  - { from: __start__, to: free }",
        "  - { from: gated, to: __end__ }",
        "  - { from: free, to: __end__ }",
      ].join("\n"),
    );
    const { instanceId } = await services.orchestrator.create({ spec: "two-branches", input: "go" });
    expect((await settledStatus(services, instanceId)).status).toBe("paused");
    const view = await services.instances.get({ instanceId });
    expect(view.invocations.find((i) => i.node === "free")?.status).toBe("COMPLETED");
    await services.control.decide({ instanceId, approved: true });
    expect((await settledStatus(services, instanceId)).status).toBe("completed");
    const done = await services.instances.get({ instanceId });
    expect(done.summary.result?.map((p) => p.content).sort()).toEqual(["free result", "gated result"]);
    await stop(services);
  });
});

/** A model that streams one word every `everyMs` until aborted; then answers with the script. */
class SlowThenScripted extends LlmProvider {
  readonly name = "slow";
  readonly requests: LlmRequest[] = [];
  constructor(
    private readonly everyMs: number,
    private readonly then: ScriptedProvider,
  ) {
    super();
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    this.requests.push({ ...request, messages: [...request.messages] });
    if (this.requests.length > 1) {
      yield* this.then.stream(request, options);
      return;
    }
    for (let i = 0; i < 200; i++) {
      yield { type: "text_delta", text: `word${i} ` };
      await new Promise((r) => setTimeout(r, this.everyMs));
    }
    yield { type: "finish", reason: "stop" };
  }
}

describe("pause cancels a running agent turn", () => {
  it("within one stream event; what streamed is kept, and resume re-runs the turn with its memory", async () => {
    using temp = new TempDatabase();
    const slow = new SlowThenScripted(40, new ScriptedProvider([deliver("__end__", "finished after the pause"), { text: "done" }]));
    const services = servicesOn(temp, () => slow);
    await services.specs.save(["name: one-agent", "nodes:", "  - { name: solo, node_type: agent, config: { instructions: Answer. } }", "edges:", "  - { from: __start__, to: solo }", "  - { from: solo, to: __end__ }"].join("\n"));
    const { instanceId } = await services.orchestrator.create({ spec: "one-agent", input: "go" });
    const deltas: string[] = [];
    services.agentRuns.subscribe(instanceId, (d) => deltas.push(d.text));
    while (deltas.length < 3) await new Promise((r) => setTimeout(r, 10));
    const asked = Date.now();
    const paused = await services.control.pause(instanceId);
    expect(paused.status).toBe("paused");
    expect(Date.now() - asked).toBeLessThan(1_000);
    const events = (await services.events.list(instanceId)).map((e) => e.event);
    expect(events.some((e) => e.type === "node_cancelled" && e.node === "solo")).toBe(true);
    const ended = events.find((e) => e.type === "node_activity" && e.activity.kind === "turn_ended");
    expect(ended && ended.type === "node_activity" && ended.activity.stopReason).toBe("cancelled");
    const message = events.find((e) => e.type === "node_activity" && e.activity.kind === "message");
    expect(message && message.type === "node_activity" && String(message.activity.text)).toContain("word0 word1");
    await services.control.resume(instanceId);
    expect((await settledStatus(services, instanceId)).status).toBe("completed");
    // The re-run turn saw what streamed before the pause, kept as an interrupted message.
    expect(JSON.stringify(slow.requests[1].messages)).toContain("<interrupted>word0 word1");
    await stop(services);
  });

  it("during a long tool call (a page that answers in 10 s): the call is cut and the instance pauses at once", async () => {
    using temp = new TempDatabase();
    let asked = false;
    const page = createServer((_req, res) => {
      asked = true;
      const timer = setTimeout(() => res.end("late"), 10_000);
      res.on("close", () => clearTimeout(timer));
    });
    await new Promise<void>((r) => page.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/slow`;
      const provider = new ScriptedProvider([{ toolCalls: [{ name: "http_fetch", args: { url } }] }, deliver("__end__", "read"), { text: "done" }]);
      const services = createAppServices({
        db: temp.db,
        auth: new AuthService(TEST_TOKEN),
        heartbeatMs: 0,
        drainWaitMs: 2_000,
        agents: { agentsDir: EXAMPLE_AGENTS_DIR, provider: () => provider, fetchAllowedHosts: ["127.0.0.1"] },
      });
      await services.specs.save(["name: one-reader", "nodes:", "  - { name: reader, node_type: agent, config: { instructions: Read., tools: [http_fetch] } }", "edges:", "  - { from: __start__, to: reader }", "  - { from: reader, to: __end__ }"].join("\n"));
      const { instanceId } = await services.orchestrator.create({ spec: "one-reader", input: "go" });
      while (!asked) await new Promise((r) => setTimeout(r, 10));
      const started = Date.now();
      expect((await services.control.pause(instanceId)).status).toBe("paused");
      expect(Date.now() - started).toBeLessThan(2_000);
      const events = (await services.events.list(instanceId)).map((e) => e.event);
      const ended = events.find((e) => e.type === "node_activity" && e.activity.kind === "turn_ended");
      expect(ended && ended.type === "node_activity" && ended.activity.stopReason).toBe("cancelled");
      await stop(services);
    } finally {
      page.closeAllConnections();
      page.close();
    }
  });
});
