import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HookRunner } from "@/server/agent/hook/hook-runner";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { ReactAgent } from "@/server/agent/react/react-agent";
import { createSpanHooks } from "@/server/agent/trace/create-span-hooks";
import { SpanRecordSchema } from "@/server/agent/trace/span-record";
import { defineTool } from "@/server/agent/tools/tool";
import { SqliteSpanSink } from "./sqlite-span-sink";
import { tempDatabase } from "./testing/temp-database";

const echo = defineTool({ name: "echo", description: "Echo", args: z.object({ text: z.string() }), execute: ({ text }) => text });

describe("SqliteSpanSink", () => {
  it("stores the spans of a real ReAct turn (full tier) in the app database, readable after a restart", async () => {
    using temp = tempDatabase();
    const runner = new HookRunner();
    for (const spec of createSpanHooks({ tier: "full", sink: new SqliteSpanSink(temp.db), providerName: "scripted", model: "m" })) {
      runner.register(spec);
    }
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }, { text: "done" }]);
    await new ReactAgent({ provider, tools: [echo], hooks: runner }).run("say hi", { sessionId: "s1", turnId: "t1" });

    const sink = new SqliteSpanSink(temp.reopen());
    const recent = sink.recentForSession("s1");
    const root = recent.find((s) => s.parentSpanId === undefined)!;
    expect(root.name).toBe("invoke_agent react");
    const trace = sink.trace(root.traceId);
    expect(trace.map((s) => s.name)).toEqual(
      expect.arrayContaining(["invoke_agent react", "agent_start react", "chat m", "execute_tool echo", "iteration 1", "iteration 2"]),
    );
    expect(trace).toHaveLength(recent.length);
    for (const span of trace) expect(SpanRecordSchema.parse(span)).toEqual(span);
  });
});
