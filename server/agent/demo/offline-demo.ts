import { z } from "zod";
import { ApprovalResumer } from "../approval/approval-resumer";
import { LoopDetectionHook } from "../hook/builtin/loop-detection-hook";
import { HookRunner } from "../hook/hook-runner";
import { ScriptedProvider } from "../llm/providers/scripted-provider";
import { ReactAgent } from "../react/react-agent";
import { defineTool } from "../tools/tool";
import { createSpanHooks } from "../trace/create-span-hooks";
import { InMemorySpanSink } from "../trace/span-record";

/**
 * An offline walk through the runtime: streaming, a tool call, an approval suspend and resume, spans.
 * Run: npx tsx server/agent/demo/offline-demo.ts
 */
const files = new Map([["notes.txt", "buy milk"]]);
const read = defineTool({ name: "read_file", description: "Read a file", args: z.object({ path: z.string() }), execute: ({ path }) => files.get(path) ?? `no such file: ${path}` });
const remove = defineTool({ name: "delete_file", description: "Delete a file", args: z.object({ path: z.string() }), needsApproval: true, execute: ({ path }) => (files.delete(path), `deleted ${path}`) });

const provider = new ScriptedProvider([
  { reasoning: "I should look first. ", text: "Let me read it.", toolCalls: [{ name: "read_file", args: { path: "notes.txt" } }], usage: { inputTokens: 40, outputTokens: 12 } },
  { text: "It says 'buy milk'. Deleting it as asked.", toolCalls: [{ name: "delete_file", args: { path: "notes.txt" } }], usage: { inputTokens: 80, outputTokens: 15 } },
  { text: "Done: notes.txt is gone.", usage: { inputTokens: 95, outputTokens: 8 } },
]);
const sink = new InMemorySpanSink();
const hooks = new HookRunner();
for (const spec of createSpanHooks({ tier: "full", sink, providerName: "scripted", model: "demo" })) hooks.register(spec);
hooks.register(new LoopDetectionHook());

const agent = new ReactAgent({
  provider,
  tools: [read, remove],
  hooks,
  systemPrompt: "You manage files.",
  onEvent: (e) => {
    if (e.type === "llm_event" && e.event.type === "text_delta") process.stdout.write(e.event.text);
    if (e.type === "llm_event" && e.event.type === "finish") process.stdout.write("\n");
    if (e.type === "tool_result") console.log(`  [tool ${e.result.name}] ${e.result.content}`);
    if (e.type === "approval_requested") console.log(`  [approval needed] ${e.transaction.call.name} ${e.transaction.call.arguments}`);
  },
});

const first = await agent.run("Read notes.txt, then delete it.", { sessionId: "demo" });
console.log(`→ ${first.status}`);
if (first.status === "suspended") {
  const second = await new ApprovalResumer(agent).applyResume({ transactionId: first.transaction.id, approved: true });
  if (second.status === "finished") console.log(`→ ${second.result.stopReason}: ${second.result.content}`);
}
console.log("spans:");
for (const s of sink.spans) console.log(`  ${s.name.padEnd(24)} ${s.endTime - s.startTime} ms  parent=${s.parentSpanId ?? "-"}`);
