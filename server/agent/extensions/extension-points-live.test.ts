import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GraphKnowledgeBase } from "../knowledge/knowledge-base";
import { knowledgeBaseTool, KNOWLEDGE_ACTIONS } from "../knowledge/knowledge-base-tool";
import type { ToolCall } from "../llm/messages";
import { ScriptedProvider, type Script } from "../llm/providers/scripted-provider";
import { recordingLogger } from "../logger";
import type { AgentEvent } from "../react/agent-events";
import { ReactAgent } from "../react/react-agent";
import { defineTool, type Tool } from "../tools/tool";
import type { ToolResult } from "../tools/tool-result";
import { Extension, type ExtensionContextFor } from "./extension";
import { ExtensionManager } from "./extension-manager";

const session = { sessionId: "s1" };

function run(extensions: Extension[], script: Script, tools: Tool[]) {
  const manager = new ExtensionManager({ logger: recordingLogger() });
  for (const e of extensions) manager.register(e);
  const provider = new ScriptedProvider(script);
  const events: AgentEvent[] = [];
  const agent = new ReactAgent({ provider, tools, systemPrompt: "test", extensions: manager, logger: recordingLogger(), onEvent: (e) => events.push(e) });
  return { agent, provider, events };
}

const ran: string[] = [];
const echo = defineTool({ name: "echo", description: "echo", args: z.object({ text: z.string() }), execute: ({ text }) => (ran.push(text), text) });
const flaky = defineTool({ name: "flaky", description: "throws", args: z.object({}), execute: () => { throw new Error("upstream 503"); } });

const toolResults = (provider: ScriptedProvider) => provider.requests.flatMap((r) => r.messages.filter((m) => m.role === "tool").map((m) => m.content));

describe("extension points that shape the run", () => {
  it("DURING_LLM_STREAMING transforms the text everyone downstream sees (events and the answer); held-back text comes at the end", async () => {
    class Hold extends Extension {
      readonly name = "hold";
      held = "";
      onDuringLlmStreaming(ctx: ExtensionContextFor<"DURING_LLM_STREAMING">): string {
        if (ctx.get("context")?.final) return this.held.toUpperCase();
        this.held += ctx.get("chunk", "");
        return "";
      }
    }
    const { agent, events } = run([new Hold()], [{ text: "one two three" }], []);
    const outcome = await agent.run("go", session);
    const deltas = events.flatMap((e) => (e.type === "llm_event" && e.event.type === "text_delta" ? [e.event.text] : []));
    expect(deltas).toEqual(["ONE TWO THREE"]);
    expect(outcome.status === "finished" && outcome.result.content).toBe("ONE TWO THREE");
  });

  it("DURING_LLM_STREAMING filters the model's reasoning too (context.channel); a channel's held text is returned before the other's starts", async () => {
    class Hold extends Extension {
      readonly name = "hold";
      held = "";
      calls: string[] = [];
      onDuringLlmStreaming(ctx: ExtensionContextFor<"DURING_LLM_STREAMING">): string {
        const { channel, final } = ctx.get("context")!;
        this.calls.push(`${channel}${final ? ":final" : ""}`);
        if (!final) {
          this.held += ctx.get("chunk", "");
          return "";
        }
        const out = this.held.toUpperCase();
        this.held = "";
        return out;
      }
    }
    const hold = new Hold();
    const { agent, events } = run([hold], [{ reasoning: "think hard", text: "the answer" }], []);
    const outcome = await agent.run("go", session);
    const deltas = events.flatMap((e) => (e.type === "llm_event" && (e.event.type === "text_delta" || e.event.type === "reasoning_delta") ? [`${e.event.type}:${e.event.text}`] : []));
    expect(deltas).toEqual(["reasoning_delta:THINK HARD", "text_delta:THE ANSWER"]);
    expect(hold.calls).toEqual(["reasoning", "reasoning", "reasoning:final", "text", "text", "text:final"]);
    expect(outcome.status === "finished" && outcome.result.content).toBe("THE ANSWER");
  });

  it("BEFORE_TOOL_PARSE rewrites a call's arguments and drops another before the executor gets them", async () => {
    ran.length = 0;
    class Parse extends Extension {
      readonly name = "parse";
      onBeforeToolParse(ctx: ExtensionContextFor<"BEFORE_TOOL_PARSE">): void {
        const calls = ctx.get("toolCalls", []);
        ctx.set("toolCalls", calls.filter((c) => !c.arguments.includes("drop")).map((c): ToolCall => ({ ...c, arguments: c.arguments.replace("hello", "HELLO") })));
      }
    }
    const script: Script = [{ toolCalls: [{ name: "echo", args: { text: "hello" } }, { name: "echo", args: { text: "drop me" } }] }, { text: "done" }];
    const { agent, provider } = run([new Parse()], script, [echo]);
    await agent.run("go", session);
    expect(ran).toEqual(["HELLO"]);
    expect(toolResults(provider)).toEqual(["HELLO"]);
  });

  it("BEFORE_TOOL_PARSE dropping every call makes the response the final answer", async () => {
    class DropAll extends Extension {
      readonly name = "drop_all";
      onBeforeToolParse(ctx: ExtensionContextFor<"BEFORE_TOOL_PARSE">): void {
        ctx.set("toolCalls", []);
      }
    }
    const { agent, provider } = run([new DropAll()], [{ text: "Let me echo.", toolCalls: [{ name: "echo", args: { text: "x" } }] }], [echo]);
    const outcome = await agent.run("go", session);
    expect(outcome.status === "finished" && outcome.result.content).toBe("Let me echo.");
    expect(provider.requests).toHaveLength(1);
  });

  it("TOOL_ERROR returns a repair: a string is what the model reads; a ToolResult for the call replaces the error", async () => {
    class Repair extends Extension {
      readonly name = "repair";
      constructor(private readonly withResult: boolean) {
        super();
      }
      onToolError(ctx: ExtensionContextFor<"TOOL_ERROR">): string | ToolResult {
        const call = ctx.get("toolCall")!;
        return this.withResult ? { callId: call.id, name: call.name, content: "cached answer", isError: false } : "The service is busy: try again in a minute.";
      }
    }
    const script: Script = [{ toolCalls: [{ name: "flaky", args: {} }] }, { text: "ok" }];
    const asText = run([new Repair(false)], script, [flaky]);
    await asText.agent.run("go", session);
    expect(toolResults(asText.provider)).toEqual(["The service is busy: try again in a minute."]);
    const asResult = run([new Repair(true)], script, [flaky]);
    await asResult.agent.run("go", session);
    expect(toolResults(asResult.provider)).toEqual(["cached answer"]);
  });

  it("BEFORE_RAG_QUERY rewrites a knowledge-base grep's query; AFTER_RAG_RESULTS filters what the model reads", async () => {
    const kb = GraphKnowledgeBase.forInstance(mkdtempSync(path.join(tmpdir(), "modex-kb-")), "i1");
    kb.write("findings", "alpha one\nbeta two\nalpha three\n", "append", "n1");
    const tool = knowledgeBaseTool({ kb, node: "n1", actions: KNOWLEDGE_ACTIONS });
    class Rag extends Extension {
      readonly name = "rag";
      queries: string[] = [];
      onBeforeRagQuery(ctx: ExtensionContextFor<"BEFORE_RAG_QUERY">): string {
        this.queries.push(`${ctx.get("action")}:${ctx.get("query")}`);
        return "alpha";
      }
      onAfterRagResults(ctx: ExtensionContextFor<"AFTER_RAG_RESULTS">): Array<Record<string, unknown>> {
        return ctx.get("results", []).filter((r) => String(r.text).includes("three"));
      }
    }
    const rag = new Rag();
    const script: Script = [{ toolCalls: [{ name: "knowledge_base", args: { action: "grep", regex: "beta" } }] }, { text: "ok" }];
    const { agent, provider } = run([rag], script, [tool]);
    await agent.run("go", session);
    expect(rag.queries).toEqual(["grep:beta"]);
    expect(toolResults(provider)).toEqual(["findings.md:3: alpha three"]);
  });
});
