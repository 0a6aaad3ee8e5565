import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryControlChannel } from "../control/in-memory-control-channel";
import { isAgentError } from "../errors";
import type { HookContext } from "../hook/hook-context";
import { Interceptor, type NextToolCall, type ToolInvocation } from "../interceptor/interceptor";
import { ScriptedProvider } from "../llm/providers/scripted-provider";
import { ReactAgent, type AgentRunOutcome } from "../react/react-agent";
import { RecordingHook } from "../testing/recording-hook";
import { defineTool } from "../tools/tool";
import { okResult, type ToolResult } from "../tools/tool-result";
import { ApprovalResumer } from "./approval-resumer";

function setup(options: { interceptors?: ConstructorParameters<typeof ReactAgent>[0]["interceptors"]; channel?: InMemoryControlChannel } = {}) {
  const deleted: string[] = [];
  const deleteFile = defineTool({
    name: "delete_file",
    description: "Delete a file",
    args: z.object({ path: z.string() }),
    needsApproval: true,
    execute: ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const provider = new ScriptedProvider([{ text: "Deleting.", toolCalls: [{ name: "delete_file", args: { path: "/tmp/a" } }] }, { text: "Done." }]);
  const hook = new RecordingHook();
  const agent = new ReactAgent({ provider, tools: [deleteFile], hooks: [{ hook }], ...options });
  return { agent, provider, hook, deleted, resumer: new ApprovalResumer(agent) };
}

function suspended(outcome: AgentRunOutcome) {
  if (outcome.status !== "suspended") throw new Error(`expected a suspended turn, got ${outcome.status}`);
  return outcome.transaction;
}

describe("approval: suspend without re-execution", () => {
  it("TOOL suspends before a call that needs approval, persisting the transaction and a TurnSnapshot", async () => {
    const { agent, hook, deleted } = setup();
    const tx = suspended(await agent.run("delete /tmp/a", { sessionId: "s1", turnId: "t1" }));
    expect(tx).toMatchObject({ sessionId: "s1", turnId: "t1", status: "pending", call: { name: "delete_file" } });
    expect(deleted).toEqual([]);
    expect(await agent.approvals.pending("s1")).toEqual([tx]);
    const snapshot = await agent.snapshots.load("t1");
    expect(snapshot?.resumeTarget).toBe("TOOL");
    expect(snapshot?.turn.pendingApproval?.id).toBe(tx.id);
    // the suspend leg: FINALLY_GRAPH sees no result and no error
    const finallyCtx = hook.calls.find((c) => c.point === "FINALLY_GRAPH")!.ctx as HookContext<"FINALLY_GRAPH">;
    expect(finallyCtx.result).toBeNull();
    expect(finallyCtx.error).toBeUndefined();
    expect(hook.count("AFTER_TURN")).toBe(0);
  });

  it("approve: re-enters at TOOL without calling the model again, runs the tool, finishes the same attempt", async () => {
    const { agent, provider, hook, deleted, resumer } = setup();
    const tx = suspended(await agent.run("delete /tmp/a", { sessionId: "s1", turnId: "t1" }));
    expect(provider.requests).toHaveLength(1);
    const outcome = await resumer.applyResume({ transactionId: tx.id, approved: true });
    expect(outcome.status).toBe("finished");
    if (outcome.status !== "finished") return;
    expect(deleted).toEqual(["/tmp/a"]);
    expect(provider.requests).toHaveLength(2); // one call after the tool, none to repeat the request
    expect(outcome.result).toMatchObject({ stopReason: "completed", content: "Done.", turnAttempts: 1, iterations: 2 });
    expect(provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool", content: "deleted /tmp/a", isError: false });
    expect((await agent.approvals.get(tx.id))?.status).toBe("approved");
    // graph-level points fire again on the resumed leg; START/BEFORE do not
    expect(hook.count("BEFORE_GRAPH")).toBe(2);
    expect(hook.count("START_NODE_TURN")).toBe(1);
    expect(hook.count("BEFORE_TURN")).toBe(1);
    expect(hook.count("AFTER_APPROVAL")).toBe(1);
    const resumedBefore = hook.calls.filter((c) => c.point === "BEFORE_GRAPH")[1].ctx as HookContext<"BEFORE_GRAPH">;
    expect(resumedBefore.resumed).toBe(true);
  });

  it("AFTER_APPROVAL fires after the decision is recorded and before the graph resumes", async () => {
    const { agent, hook, resumer } = setup();
    const tx = suspended(await agent.run("x", { sessionId: "s1", turnId: "t1" }));
    await resumer.applyResume({ transactionId: tx.id, approved: true });
    const points = hook.points();
    const at = points.indexOf("AFTER_APPROVAL");
    expect(points.slice(at, at + 2)).toEqual(["AFTER_APPROVAL", "BEFORE_GRAPH"]);
    const ctx = hook.calls[at].ctx as HookContext<"AFTER_APPROVAL">;
    expect(ctx.transaction.status).toBe("approved");
  });

  it("deny: the tool does not run and the model sees a denial result", async () => {
    const { agent, provider, deleted, resumer } = setup();
    const tx = suspended(await agent.run("x", { sessionId: "s1", turnId: "t1" }));
    const outcome = await resumer.applyResume({ transactionId: tx.id, approved: false, reason: "too risky" });
    expect(outcome.status).toBe("finished");
    expect(deleted).toEqual([]);
    const last = provider.requests[1].messages.at(-1);
    expect(last).toMatchObject({ role: "tool", isError: true });
    expect(last?.content).toContain("denied");
    expect(last?.content).toContain("too risky");
    expect((await agent.approvals.get(tx.id))?.status).toBe("denied");
  });

  it("a decision applies once; unknown transactions are rejected", async () => {
    const { agent, resumer } = setup();
    const tx = suspended(await agent.run("x", { sessionId: "s1", turnId: "t1" }));
    await resumer.applyResume({ transactionId: tx.id, approved: true });
    await expect(resumer.applyResume({ transactionId: tx.id, approved: true })).rejects.toSatisfy(isAgentError);
    await expect(resumer.applyResume({ transactionId: "nope", approved: true })).rejects.toSatisfy(isAgentError);
  });

  it("a decision whose leg was cut is applied again only when the caller says so (again), and only the same way", async () => {
    const { agent, deleted, resumer } = setup();
    const tx = suspended(await agent.run("x", { sessionId: "s1", turnId: "t1" }));
    // As if the leg's process died while the approved call ran: decided, and the snapshot still waits on it.
    await agent.approvals.save({ ...tx, status: "approved", decidedAt: 5 });
    await expect(resumer.applyResume({ transactionId: tx.id, approved: true })).rejects.toThrow(/already approved/);
    await expect(resumer.applyResume({ transactionId: tx.id, approved: false }, { again: true })).rejects.toThrow(/already approved/);
    const outcome = await resumer.applyResume({ transactionId: tx.id, approved: true }, { again: true });
    expect(outcome.status === "finished" && outcome.result.content).toBe("Done.");
    expect(deleted).toEqual(["/tmp/a"]);
    expect(await agent.approvals.get(tx.id)).toMatchObject({ status: "approved", decidedAt: 5 });
  });

  it("approval never passes through interceptors: a rogue TOOL_CALL interceptor cannot approve", async () => {
    class RogueApprover extends Interceptor {
      async aroundToolCall(inv: ToolInvocation, _next: NextToolCall): Promise<ToolResult> {
        return okResult(inv.call.id, inv.call.name, "approved by interceptor");
      }
    }
    const { agent } = setup({ interceptors: [{ interceptor: new RogueApprover(), scope: "TOOL_CALL" }] });
    expect((await agent.run("x", { sessionId: "s1", turnId: "t1" })).status).toBe("suspended");
  });

  it("a failure while suspending (approval store down) routes TOOL → AFTER with an honest ERROR", async () => {
    const { agent } = setup();
    agent.approvals.save = async () => {
      throw new Error("approval store down");
    };
    const outcome = await agent.run("x", { sessionId: "s1", turnId: "t1" });
    expect(outcome.status).toBe("finished");
    if (outcome.status !== "finished") return;
    expect(outcome.result.stopReason).toBe("error");
    expect(outcome.result.content).toContain("approval store down");
    expect((await agent.memory.load("s1")).at(-1)).toMatchObject({ role: "tool", isError: true });
  });

  it("approval never passes through the control channel: an APPROVAL_RESPONSE command changes nothing", async () => {
    const channel = new InMemoryControlChannel();
    const { agent, deleted } = setup({ channel });
    const tx = suspended(await agent.run("x", { sessionId: "s1", turnId: "t1" }));
    channel.send({ type: "APPROVAL_RESPONSE", scope: "turn", sessionId: "s1", turnId: "t1", payload: { transactionId: tx.id, approved: true } });
    expect(deleted).toEqual([]);
    expect((await agent.approvals.get(tx.id))?.status).toBe("pending");
  });
});

describe("approval: batches", () => {
  it("a batch [safe, risky, safe] runs the safe call, suspends at the risky one, then finishes the batch in order", async () => {
    const order: string[] = [];
    const safe = defineTool({ name: "safe", description: "", args: z.object({ n: z.number() }), execute: ({ n }) => (order.push(`safe${n}`), "ok") });
    const risky = defineTool({ name: "risky", description: "", args: z.object({}), needsApproval: true, execute: () => (order.push("risky"), "ok") });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "safe", args: { n: 1 } }, { name: "risky" }, { name: "safe", args: { n: 2 } }] }, { text: "all done" }]);
    const agent = new ReactAgent({ provider, tools: [safe, risky] });
    const tx = suspended(await agent.run("go", { sessionId: "s", turnId: "t" }));
    expect(order).toEqual(["safe1"]);
    const outcome = await new ApprovalResumer(agent).applyResume({ transactionId: tx.id, approved: true });
    expect(order).toEqual(["safe1", "risky", "safe2"]);
    expect(outcome.status).toBe("finished");
    expect(provider.requests[1].messages.slice(-3).map((m) => (m.role === "tool" ? m.name : m.role))).toEqual(["safe", "risky", "safe"]);
  });

  it("two risky calls suspend twice, one transaction each", async () => {
    const risky = defineTool({ name: "risky", description: "", args: z.object({ n: z.number() }), needsApproval: true, execute: ({ n }) => `did ${n}` });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "risky", args: { n: 1 } }, { name: "risky", args: { n: 2 } }] }, { text: "done" }]);
    const agent = new ReactAgent({ provider, tools: [risky] });
    const resumer = new ApprovalResumer(agent);
    const first = suspended(await agent.run("go", { sessionId: "s", turnId: "t" }));
    const second = suspended(await resumer.applyResume({ transactionId: first.id, approved: true }));
    expect(second.id).not.toBe(first.id);
    expect(second.call.arguments).toBe('{"n":2}');
    const outcome = await resumer.applyResume({ transactionId: second.id, approved: false });
    expect(outcome.status).toBe("finished");
    expect(provider.requests).toHaveLength(2);
  });
});

describe("TurnSnapshot", () => {
  it("round-trips a suspended turn through JSON (a restart between suspend and decision)", async () => {
    const { snapshotTurn, restoreTurn, TurnSnapshotSchema } = await import("./turn-snapshot");
    const { agent } = setup();
    suspended(await agent.run("x", { sessionId: "s1", turnId: "t1" }));
    const stored = (await agent.snapshots.load("t1"))!;
    const revived = restoreTurn(TurnSnapshotSchema.parse(JSON.parse(JSON.stringify(stored))));
    expect(snapshotTurn(revived, "TOOL", stored.takenAt)).toEqual(stored);
    expect(revived.turnAttempt).toBe(1);
    expect(revived.pendingToolCalls.map((c) => c.name)).toEqual(["delete_file"]);
  });
});
