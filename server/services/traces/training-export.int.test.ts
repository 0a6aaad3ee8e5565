import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TRAINING_DATA_PRIORITY, TrainingDataHook } from "@/server/agent/hook/builtin/training-data-hook";
import { ScriptedProvider, type ScriptedReply } from "@/server/agent/llm/providers/scripted-provider";
import { ReactAgent } from "@/server/agent/react/react-agent";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import { createSpanHooks } from "@/server/agent/trace/create-span-hooks";
import type { SpanSink, TurnRootIndex } from "@/server/agent/trace/span-record";
import { defineTool } from "@/server/agent/tools/tool";
import { PgSpanSink } from "@/server/db/pg-span-sink";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { SqliteSpanSink } from "@/server/db/sqlite-span-sink";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { newSnowflake } from "@/server/graph/ids";
import { PgAgentMemory } from "../agents/pg-agent-memory";
import { SqliteAgentMemory } from "../agents/sqlite-agent-memory";
import { recordingLogger } from "@/server/agent/logger";
import { AppExtensions } from "../extensions/app-extensions";
import { testServices } from "../testing/test-services";
import type { TrainingExample } from "./training-example";
import { TurnTraces } from "./turn-traces";

const lookup = defineTool({ name: "lookup", description: "Looks a word up", args: z.object({ word: z.string() }), execute: ({ word }) => `${word}: a greeting` });

async function exported(traces: TurnTraces, args: Parameters<TurnTraces["trainingLines"]>[0] = { source: "all" }): Promise<TrainingExample[]> {
  const lines: string[] = [];
  for await (const line of traces.trainingLines(args)) lines.push(line);
  expect(lines.every((l) => l.endsWith("\n") && !l.slice(0, -1).includes("\n"))).toBe(true);
  return lines.map((l) => JSON.parse(l) as TrainingExample);
}

/** An agent node's turns written as the app writes them: its spans to the store's table, its conversation to its memory. */
function nodeAgent(spans: SpanSink, memory: SessionMemory, script: ScriptedReply[]) {
  const hooks = [
    ...createSpanHooks({ tier: "standard", sink: spans, providerName: "scripted", model: "m", agentName: "coder" }),
    { hook: new TrainingDataHook("You look words up."), priority: TRAINING_DATA_PRIORITY },
  ];
  return new ReactAgent({ provider: new ScriptedProvider(script), tools: [lookup], hooks, memory, systemPrompt: "You look words up." });
}

/** The export over real stores: a node's completed turns are lines, a failed one is not, a person's choice wins. */
function exportTests(open: () => { spans: SpanSink & TurnRootIndex; memory: SessionMemory }) {
  it("exports each relevant agent-node turn from its stored conversation, in the fine-tuning shape", async () => {
    const { spans, memory } = open();
    const session = `${newSnowflake()}:coder`;
    const agent = nodeAgent(spans, memory, [
      { toolCalls: [{ name: "lookup", args: { word: "hello" } }] },
      { text: "Hello means a greeting. My key is sk-abcdefghijklmnopqrstuvwx." },
      { text: "Bye." },
      { fail: { message: "provider down" } },
    ]);
    await agent.run("What does hello mean?", { sessionId: session, turnId: "t1" });
    await agent.run("Say bye.", { sessionId: session, turnId: "t2" });
    await agent.run("Again?", { sessionId: session, turnId: "t3" }).catch(() => undefined);
    // The sink's writes are fire-and-forget (on PostgreSQL, committed a little later): wait for the three turns.
    const roots = async () => (await spans.turnRoots(null, 50, { source: "node", errorsOnly: false })).filter((r) => r.sessionId === session);
    await expect.poll(async () => (await roots()).length).toBe(3);
    const traces = new TurnTraces({ index: spans, chatTitle: async () => null, graphOf: async () => null, conversation: (s) => memory.load(s) });

    const lines = (await exported(traces, { source: "node" })).filter((l) => l.metadata.sessionId === session);
    expect(lines.map((l) => l.metadata.turnId)).toEqual(["t2", "t1"]);
    const [, first] = lines;
    expect(first.metadata).toMatchObject({ source: "node", agent: "coder", chosen: false });
    expect(first.messages).toEqual([
      { role: "system", content: "You look words up." },
      { role: "user", content: "What does hello mean?" },
      { role: "assistant", content: null, tool_calls: [{ id: expect.any(String), type: "function", function: { name: "lookup", arguments: '{"word":"hello"}' } }] },
      { role: "tool", tool_call_id: (first.messages[2] as { tool_calls: { id: string }[] }).tool_calls[0].id, content: "hello: a greeting" },
      // As stored: the app's secret masking (an extension) would have replaced the key before it was stored.
      { role: "assistant", content: "Hello means a greeting. My key is sk-abcdefghijklmnopqrstuvwx." },
    ]);
    // The second turn is its own messages only, not the conversation before it.
    expect(lines[0].messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(await exported(traces, { source: "chat" })).not.toContainEqual(expect.objectContaining({ metadata: expect.objectContaining({ sessionId: session }) }));

    // A person excludes t2: it leaves the export; since= keeps later turns only.
    const page = await traces.recent({ limit: 50, filter: { source: "node", errorsOnly: false } });
    const t2 = page.turns.find((t) => t.turnId === "t2" && t.source.kind === "node")!;
    expect(t2).toMatchObject({ training: true, trainingChosen: false });
    expect(await traces.chooseTraining(t2.spanId, false)).toEqual({ spanId: t2.spanId, training: false, trainingChosen: true });
    expect((await exported(traces, { source: "node" })).filter((l) => l.metadata.sessionId === session).map((l) => l.metadata.turnId)).toEqual(["t1"]);
    const t3 = page.turns.find((t) => t.turnId === "t3" && t.source.kind === "node")!;
    expect(t3.training).toBe(false);
    expect(await exported(traces, { source: "node", since: Date.now() + 60_000 })).toEqual([]);
    const filtered = await traces.recent({ limit: 50, filter: { source: "node", errorsOnly: false, trainingOnly: true } });
    expect(filtered.turns.filter((t) => t.source.kind === "node" && t.source.instanceId === session.split(":")[0]).map((t) => t.turnId)).toEqual(["t1"]);
  });
}

describe("the training-data export on SQLite", () => {
  const temps: TempDatabase[] = [];
  afterEach(() => temps.splice(0).forEach((t) => t[Symbol.dispose]()));
  exportTests(() => {
    const temp = new TempDatabase();
    temps.push(temp);
    return { spans: new SqliteSpanSink(temp.db), memory: new SqliteAgentMemory(temp.db) };
  });

  it("is on for the app's chat agent: a chat turn with a tool call is one line, masked secrets stay masked", async () => {
    const provider = new ScriptedProvider([
      { text: "Planning. ", toolCalls: [{ name: "todo_write", args: { todos: [{ content: "answer", status: "completed" }] } }] },
      { text: "Done. The token was ghp_abcdefghijklmnopqrstuvwxyz0123." },
    ]);
    // The app's secret masking on (extensions.yml), as a user turns it on: the key is stored masked.
    const dir = mkdtempSync(path.join(tmpdir(), "modex-ext-"));
    writeFileSync(path.join(dir, "extensions.yml"), "builtins:\n  secret_masking: {}\n");
    const extensions = new AppExtensions({ dir, logger: recordingLogger() });
    await using t = testServices("sqlite", { chatProvider: provider }, { extensions });
    await extensions.load();
    const { sessionId } = await t.services.chat.send({ message: "plan and answer" });
    await t.services.chat.idle(sessionId);
    const lines = await exported(t.services.traces, { source: "chat" });
    expect(lines).toHaveLength(1);
    expect(lines[0].metadata).toMatchObject({ sessionId, source: "chat", agent: "assistant" });
    // The assistant agent's current_time reminder is one of the turn's stored messages, as the model saw it.
    expect(lines[0].messages.map((m) => m.role)).toEqual(["system", "user", "user", "assistant", "tool", "assistant"]);
    expect(lines[0].messages).toContainEqual({ role: "user", content: "plan and answer" });
    expect(lines[0].messages.at(-1)).toEqual({ role: "assistant", content: "Done. The token was [masked]." });
    rmSync(dir, { recursive: true, force: true });
    expect(await exported(t.services.traces, { source: "node" })).toEqual([]);
  });
});

describe("the training-data export on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  exportTests(() => {
    const pools = database.open();
    return { spans: new PgSpanSink(pools.acks), memory: new PgAgentMemory(pools.acks) };
  });
});
