import { describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { ScriptedProvider, type Script, type ScriptedReply } from "@/server/agent/llm/providers/scripted-provider";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { createAppServices, type AppServices } from "../app-services";
import { AuthService } from "../auth-service";
import { TEST_TOKEN, EXAMPLE_AGENTS_DIR } from "../testing/test-services";

// A turn that delivers, then suspends on a later tool call that needs approval: what it delivered before
// the suspend is routed once the turn finishes after the decision — once, not lost and not repeated,
// also when the server restarted while the approval waited.

const deliver = (target: string, content: string) => ({ name: "deliver", args: { target, content } });
const calls = (...toolCalls: ScriptedReply["toolCalls"] & object) => ({ toolCalls });

/** worker delivers to notes freely; its delivery to __end__ asks first. notes reports what it got. */
const SPEC = [
  "name: deliver-then-ask",
  "nodes:",
  "  - name: worker",
  "    node_type: agent",
  "    config: { instructions: Work., approval: { tools: [{ tool: deliver, when: { target: __end__ } }] } }",
  "  - { name: notes, node_type: agent, config: { instructions: Keep notes. } }",
  "edges:",
  "  - { from: __start__, to: worker }",
  "  - { from: worker, to: notes }",
  "  - { from: worker, to: __end__ }",
  "  - { from: notes, to: __end__ }",
].join("\n");

/** notes answers with what its input said, so the result shows each delivery it received. */
const notesScript: Script = (request, index) => {
  if (index % 2 === 1) return { text: "noted" };
  const input = [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  const got = [...input.matchAll(/\[Input from graph node 'worker'[^\n]*\]\n([^\n]*)/g)].map((m) => m[1]);
  return calls(deliver("__end__", `notes got: ${got.join(" | ")}`));
};

function servicesOn(temp: TempDatabase, provider: AgentNodeDeps["provider"]): AppServices {
  const services = createAppServices({ db: temp.db, auth: new AuthService(TEST_TOKEN), heartbeatMs: 0, drainWaitMs: 2_000, agents: { agentsDir: EXAMPLE_AGENTS_DIR, provider } });
  services.specs.save(SPEC); // synchronous on SQLite
  return services;
}

function scripted(worker: Script) {
  const providers = { worker: new ScriptedProvider(worker), notes: new ScriptedProvider(notesScript) };
  return { providers, provider: ((_c, node) => providers[node as keyof typeof providers]) as AgentNodeDeps["provider"] };
}

async function status(services: AppServices, instanceId: string) {
  await services.orchestrator.settled(instanceId);
  return (await services.orchestrator.coordinator.instances.load(instanceId))!.status;
}

async function resultOf(services: AppServices, instanceId: string) {
  const view = await services.instances.get({ instanceId });
  return view.summary.result?.map((p) => p.content).sort();
}

async function invocationsOf(services: AppServices, instanceId: string, node: string) {
  const view = await services.instances.get({ instanceId });
  return view.invocations.filter((i) => i.node === node).length;
}

/** `script`, but reply #`slowAt` streams a word every 40 ms instead (for a pause to cut; `streaming` once it does). */
class SlowAt extends LlmProvider {
  readonly name = "slow-at";
  streaming = false;
  private calls = 0;

  constructor(
    private readonly script: ScriptedProvider,
    private readonly slowAt: number,
  ) {
    super();
  }

  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    if (this.calls++ !== this.slowAt) return yield* this.script.stream(request, options);
    this.streaming = true;
    for (let i = 0; i < 200; i++) {
      yield { type: "text_delta", text: `word${i} ` };
      await new Promise((r) => setTimeout(r, 40));
    }
    yield { type: "finish", reason: "stop" };
  }
}

async function stop(services: AppServices) {
  services.recovery.stop();
  await services.orchestrator.drainAll();
}

describe("a delivery made before an approval suspend", () => {
  it("is delivered once the turn goes on after Approve (deliver in one iteration, the asking call in the next)", async () => {
    using temp = new TempDatabase();
    const { providers, provider } = scripted([calls(deliver("notes", "draft 1")), calls(deliver("__end__", "final answer")), { text: "done" }]);
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "deliver-then-ask", input: "go" });
    expect(await status(services, instanceId)).toBe("paused");
    expect(providers.notes.requests).toHaveLength(0);
    await services.control.decide({ instanceId, approved: true, by: "test" });
    expect(await status(services, instanceId)).toBe("completed");
    expect(await resultOf(services, instanceId)).toEqual(["final answer", "notes got: draft 1"]);
    expect(await invocationsOf(services, instanceId, "notes")).toBe(1);
    await stop(services);
  });

  it("is delivered once when the deliver and the asking call came in the same model reply", async () => {
    using temp = new TempDatabase();
    const { provider } = scripted([calls(deliver("notes", "draft 1"), deliver("__end__", "final answer")), { text: "done" }]);
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "deliver-then-ask", input: "go" });
    expect(await status(services, instanceId)).toBe("paused");
    await services.control.decide({ instanceId, approved: true, by: "test" });
    expect(await status(services, instanceId)).toBe("completed");
    expect(await resultOf(services, instanceId)).toEqual(["final answer", "notes got: draft 1"]);
    await stop(services);
  });

  it("is delivered after Deny too (it had run; only the asking call was refused)", async () => {
    using temp = new TempDatabase();
    const { provider } = scripted([calls(deliver("notes", "draft 1")), calls(deliver("__end__", "final answer")), { text: "understood" }]);
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "deliver-then-ask", input: "go" });
    expect(await status(services, instanceId)).toBe("paused");
    await services.control.decide({ instanceId, approved: false, reason: "not yet", by: "test" });
    expect(await status(services, instanceId)).toBe("completed");
    expect(await resultOf(services, instanceId)).toEqual(["notes got: draft 1"]);
    await stop(services);
  });

  it("across two suspends of one turn, each delivery is routed exactly once, in order", async () => {
    using temp = new TempDatabase();
    const { provider } = scripted([
      calls(deliver("notes", "draft 1")),
      calls(deliver("__end__", "part A")),
      calls(deliver("notes", "draft 2")),
      calls(deliver("__end__", "part B")),
      { text: "done" },
    ]);
    const services = servicesOn(temp, provider);
    const { instanceId } = await services.orchestrator.create({ spec: "deliver-then-ask", input: "go" });
    expect(await status(services, instanceId)).toBe("paused");
    await services.control.decide({ instanceId, approved: true, by: "test" });
    expect(await status(services, instanceId)).toBe("paused");
    await services.control.decide({ instanceId, approved: true, by: "test" });
    expect(await status(services, instanceId)).toBe("completed");
    // notes ran once, on both deliveries (the worker's invocation delivered them together).
    expect(await resultOf(services, instanceId)).toEqual(["notes got: draft 1 | draft 2", "part A", "part B"]);
    expect(await invocationsOf(services, instanceId, "notes")).toBe(1);
    await stop(services);
  });

  it("a pause during the leg after Approve: the resume goes on from the decision again, each delivery routed once", async () => {
    using temp = new TempDatabase();
    const worker = new SlowAt(new ScriptedProvider([calls(deliver("notes", "draft 1")), calls(deliver("__end__", "final answer")), { text: "done" }]), 2);
    const notes = new ScriptedProvider(notesScript);
    const services = servicesOn(temp, (_c, node) => (node === "worker" ? worker : notes));
    const { instanceId } = await services.orchestrator.create({ spec: "deliver-then-ask", input: "go" });
    expect(await status(services, instanceId)).toBe("paused");
    await services.control.decide({ instanceId, approved: true, by: "test" });
    while (!worker.streaming) await new Promise((r) => setTimeout(r, 10));
    expect((await services.control.pause(instanceId)).status).toBe("paused");
    await services.control.resume(instanceId);
    expect(await status(services, instanceId)).toBe("completed");
    expect(await resultOf(services, instanceId)).toEqual(["final answer", "notes got: draft 1"]);
    expect(await invocationsOf(services, instanceId, "notes")).toBe(1);
    const decided = (await services.events.list(instanceId)).flatMap((e) => (e.event.type === "node_activity" && e.event.activity.kind === "approval_decided" ? [e.event.activity.summary] : []));
    expect(decided).toEqual(["approved", "approved (applied again: the leg it resumed was cut short)"]);
    await stop(services);
  });

  it("survives a server restart while the approval waits: the restarted server delivers it once", async () => {
    using temp = new TempDatabase();
    const script = () => scripted([calls(deliver("notes", "draft 1")), calls(deliver("__end__", "final answer")), { text: "done" }]);
    const first = servicesOn(temp, script().provider);
    const { instanceId } = await first.orchestrator.create({ spec: "deliver-then-ask", input: "go" });
    expect(await status(first, instanceId)).toBe("paused");
    await stop(first);
    temp.reopen();
    // A fresh model on the new server: the approved call is not asked again; the model's next reply is "done".
    const { providers, provider } = scripted([{ text: "done" }]);
    const second = servicesOn(temp, provider);
    await second.recovery.pass();
    await second.control.decide({ instanceId, approved: true, by: "test" });
    expect(await status(second, instanceId)).toBe("completed");
    expect(await resultOf(second, instanceId)).toEqual(["final answer", "notes got: draft 1"]);
    expect(await invocationsOf(second, instanceId, "notes")).toBe(1);
    expect(providers.worker.requests).toHaveLength(1);
    await stop(second);
  });
});
