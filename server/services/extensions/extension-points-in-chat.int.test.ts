import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ALL_EXTENSION_POINTS, EXTENSION_METHOD } from "@/server/agent/extensions/extension-point";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { recordingLogger } from "@/server/agent/logger";
import { testServices } from "../testing/test-services";
import { AppExtensions } from "./app-extensions";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A module with a method at every point that records the point's name (and nothing else). */
const RECORDER = `const points = ${JSON.stringify(Object.fromEntries(ALL_EXTENSION_POINTS.map((p) => [EXTENSION_METHOD[p], p])))};
const ext = { name: "recorder", seen: [] };
for (const [method, point] of Object.entries(points)) {
  ext[method] = function (ctx) {
    const final = point === "DURING_LLM_STREAMING" && ctx.get("context").final ? ":final" : "";
    if (this.seen.at(-1) !== point + final || point !== "DURING_LLM_STREAMING") this.seen.push(point + final);
  };
}
export default ext;`;

async function chatWithRecorder(script: Script) {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-ext-"));
  dirs.push(dir);
  writeFileSync(path.join(dir, "recorder.mjs"), RECORDER);
  const extensions = new AppExtensions({ dir, logger: recordingLogger() });
  const t = testServices("sqlite", { chatProvider: new ScriptedProvider(script) }, { extensions });
  await extensions.load();
  const seen = (extensions.manager.get("recorder") as unknown as { seen: string[] }).seen;
  return { t, seen };
}

describe("each point fires where the README's table says, in a chat turn through the app", () => {
  it("a turn with a tool call, then an answer; the chat opened and deleted", async () => {
    const script: Script = [{ text: "Looking.", toolCalls: [{ name: "list_graphs", args: {} }] }, { text: "Here they are." }];
    const { t, seen } = await chatWithRecorder(script);
    await using _t = t;
    const { sessionId } = await t.services.chat.send({ message: "which graphs?" });
    await t.services.chat.idle(sessionId);
    await t.services.chat.remove(sessionId);
    await expect.poll(() => seen.at(-1)).toBe("SESSION_DESTROY");
    // SESSION_CREATE is fired without waiting once the chat's row committed: the first turn may have begun.
    expect(seen.filter((p) => p === "SESSION_CREATE")).toHaveLength(1);
    const modelCall = ["BEFORE_CONTINUATION", "BEFORE_PROMPT_BUILD", "AFTER_PROMPT_BUILD", "SYSTEM_PROMPT_READY", "FULL_PROMPT_READY", "BEFORE_LLM_CALL", "DURING_LLM_STREAMING", "DURING_LLM_STREAMING:final"];
    expect(seen.filter((p) => p !== "SESSION_CREATE")).toEqual([
      "BEFORE_MESSAGE_PROCESS",
      // Iteration 1: the model calls a tool.
      ...modelCall,
      "BEFORE_TOOL_PARSE",
      "AFTER_LLM_RESPONSE",
      "BEFORE_TOOL_EXECUTE",
      "AFTER_TOOL_EXECUTE",
      "AFTER_CONTINUATION", // after the tools ran, not only after an iteration without tool calls
      // Iteration 2: the answer.
      ...modelCall,
      "AFTER_LLM_RESPONSE",
      "AFTER_CONTINUATION",
      "LOOP_COMPLETE",
      "BEFORE_RESPONSE_SEND",
      "AFTER_RESPONSE_SEND",
      "SESSION_DESTROY",
    ]);
  });

  it("a call that needs approval: APPROVAL_REQUIRED before asking, APPROVAL_RECEIVED once the person decided", async () => {
    const script: Script = (req) => (req.messages.at(-1)?.role === "tool" ? { text: "Started." } : { toolCalls: [{ name: "run_graph", args: { name: "counter-loop" } }] });
    const { t, seen } = await chatWithRecorder(script);
    await using _t = t;
    const { sessionId } = await t.services.chat.send({ message: "run counter-loop" });
    await t.services.chat.idle(sessionId);
    expect(seen.filter((p) => p.startsWith("APPROVAL"))).toEqual(["APPROVAL_REQUIRED"]);
    await t.services.chat.decidePending({ sessionId, approved: true });
    await t.services.chat.idle(sessionId);
    const after = seen.slice(seen.indexOf("APPROVAL_REQUIRED") + 1);
    expect(after.slice(0, 3)).toEqual(["APPROVAL_RECEIVED", "BEFORE_TOOL_EXECUTE", "AFTER_TOOL_EXECUTE"]);
    expect(after).not.toContain("BEFORE_MESSAGE_PROCESS"); // a resume carries no new message
    expect(after.at(-1)).toBe("AFTER_RESPONSE_SEND");
  });
});
