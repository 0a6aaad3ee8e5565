import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalResumer } from "../approval/approval-resumer";
import { ExtensionVetoError, isExtensionVetoError, isPolicyViolationError, mustPropagate } from "../errors";
import type { ChatMessage } from "../llm/messages";
import { ScriptedProvider, type Script } from "../llm/providers/scripted-provider";
import { recordingLogger } from "../logger";
import { ReactAgent, type AgentRunOutcome } from "../react/react-agent";
import { defineTool } from "../tools/tool";
import type { ToolResult } from "../tools/tool-result";
import { Extension, type ExtensionContextFor } from "./extension";
import { ExtensionManager } from "./extension-manager";
import { ALL_EXTENSION_POINTS, EXTENSION_METHOD, type ExtensionPoint } from "./extension-point";

const session = { sessionId: "s1" };

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  args: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

function agentWith(extensions: Extension[], script: Script, extra: Partial<ConstructorParameters<typeof ReactAgent>[0]> = {}) {
  const logger = recordingLogger();
  const manager = new ExtensionManager({ logger });
  for (const e of extensions) manager.register(e);
  const provider = new ScriptedProvider(script);
  const agent = new ReactAgent({ provider, tools: [add], systemPrompt: "You add.", extensions: manager, logger, ...extra });
  return { agent, provider, manager, logger };
}

function finished(outcome: AgentRunOutcome) {
  if (outcome.status !== "finished") throw new Error(`expected a finished turn, got ${outcome.status}`);
  return outcome.result;
}

/** Implements every point and records the order they fire in. */
class Recorder extends Extension {
  readonly name = "recorder";
  readonly seen: ExtensionPoint[] = [];
  readonly chunks: string[] = [];
  constructor() {
    super();
    for (const point of ALL_EXTENSION_POINTS) {
      (this as unknown as Record<string, unknown>)[EXTENSION_METHOD[point]] = (ctx: ExtensionContextFor<"DURING_LLM_STREAMING">) => {
        this.seen.push(point);
        if (point === "DURING_LLM_STREAMING") this.chunks.push(ctx.get("chunk", ""));
      };
    }
  }
}

const oneToolCall: Script = [{ text: "Adding.", toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] }, { text: "It is 5." }];

describe("extensions in a ReAct agent run: the lifecycle", () => {
  it("ctx.agentId is the agent's agentId at every point of a turn (the spec's agent_id); unset without one", async () => {
    class Who extends Recorder {
      readonly agentIds = new Set<string | undefined>();
      constructor() {
        super();
        for (const point of ALL_EXTENSION_POINTS) {
          (this as unknown as Record<string, unknown>)[EXTENSION_METHOD[point]] = (ctx: ExtensionContextFor<"BEFORE_LLM_CALL">) => {
            this.seen.push(point);
            this.agentIds.add(ctx.agentId);
          };
        }
      }
    }
    const named = new Who();
    finished(await agentWith([named], oneToolCall, { agentId: "writer" }).agent.run("add 2 and 3", session));
    expect(named.seen.length).toBeGreaterThan(10);
    expect([...named.agentIds]).toEqual(["writer"]);
    const anonymous = new Who();
    finished(await agentWith([anonymous], oneToolCall).agent.run("add 2 and 3", session));
    expect([...anonymous.agentIds]).toEqual([undefined]);
  });

  it("fires the wired points in the spec's order for a turn with one tool call", async () => {
    const recorder = new Recorder();
    const { agent } = agentWith([recorder], oneToolCall);
    finished(await agent.run("2+3?", session));
    const perCall = ["BEFORE_CONTINUATION", "BEFORE_PROMPT_BUILD", "AFTER_PROMPT_BUILD", "SYSTEM_PROMPT_READY", "FULL_PROMPT_READY", "BEFORE_LLM_CALL"];
    const compact = recorder.seen.filter((p, i) => p !== "DURING_LLM_STREAMING" || recorder.seen[i - 1] !== p);
    expect(compact).toEqual([
      "BEFORE_MESSAGE_PROCESS",
      ...perCall,
      "DURING_LLM_STREAMING",
      "BEFORE_TOOL_PARSE",
      "AFTER_LLM_RESPONSE",
      "BEFORE_TOOL_EXECUTE",
      "AFTER_TOOL_EXECUTE",
      "AFTER_CONTINUATION",
      ...perCall,
      "DURING_LLM_STREAMING",
      "AFTER_LLM_RESPONSE",
      "AFTER_CONTINUATION",
      "LOOP_COMPLETE",
      "BEFORE_RESPONSE_SEND",
      "AFTER_RESPONSE_SEND",
    ]);
  });
});

describe("extensions in a ReAct agent run: TRANSFORM", () => {
  class Tenant extends Extension {
    readonly name = "tenant";
    onAfterPromptBuild(ctx: ExtensionContextFor<"AFTER_PROMPT_BUILD">): ChatMessage[] {
      return [...ctx.get("prompt", []), { role: "user", content: "Answer in French." }];
    }
    onSystemPromptReady(ctx: ExtensionContextFor<"SYSTEM_PROMPT_READY">): string {
      return `${ctx.get("systemPrompt", "")} Tenant: acme.`;
    }
  }

  it("edits the prompt the model sees, not the conversation kept in memory", async () => {
    const { agent, provider } = agentWith([new Tenant()], [{ text: "Bonjour." }]);
    finished(await agent.run("hello", session));
    expect(provider.requests[0].messages).toEqual([
      { role: "system", content: "You add. Tenant: acme." },
      { role: "user", content: "hello" },
      { role: "user", content: "Answer in French." },
    ]);
    expect(await agent.memory.load("s1")).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "Bonjour." },
    ]);
  });

  it("a malformed prompt from an extension is warned about and the model gets the original", async () => {
    class Bad extends Extension {
      readonly name = "bad";
      onFullPromptReady(): ChatMessage[] {
        return "not messages" as unknown as ChatMessage[];
      }
    }
    const { agent, provider, logger } = agentWith([new Bad()], [{ text: "ok" }]);
    finished(await agent.run("hello", session));
    expect(provider.requests[0].messages.map((m) => m.content)).toEqual(["You add.", "hello"]);
    expect(logger.records).toContainEqual(expect.objectContaining({ level: "warn", message: "FULL_PROMPT_READY returned string, expected array" }));
  });

  it("rewrites the model's response in the history, and masks the answer before it is sent", async () => {
    class Masking extends Extension {
      readonly name = "secret_masking";
      priority = 90;
      onAfterLlmResponse(ctx: ExtensionContextFor<"AFTER_LLM_RESPONSE">): string {
        return ctx.get("response", "").replace("Sure!", "Sure.");
      }
      onBeforeResponseSend(ctx: ExtensionContextFor<"BEFORE_RESPONSE_SEND">): string {
        return ctx.get("response", "").replace(/sk-\w+/g, "sk-***");
      }
    }
    const { agent } = agentWith([new Masking()], [{ text: "Sure! The key is sk-abc123" }]);
    const result = finished(await agent.run("key?", session));
    expect(result.content).toBe("Sure. The key is sk-***");
    expect((await agent.memory.load("s1"))[1]).toEqual({ role: "assistant", content: "Sure. The key is sk-abc123" });
  });

  it("rewrites a tool result before the model reads it", async () => {
    class Enrich extends Extension {
      readonly name = "enrich";
      onAfterToolExecute(ctx: ExtensionContextFor<"AFTER_TOOL_EXECUTE">): ToolResult {
        const result = ctx.get("toolResult")!;
        return { ...result, content: `${result.content} (checked)` };
      }
    }
    const { agent, provider } = agentWith([new Enrich()], oneToolCall);
    finished(await agent.run("2+3?", session));
    expect(provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool", content: "5 (checked)" });
  });
});

describe("extensions in a ReAct agent run: CANCELLABLE", () => {
  class Budget extends Extension {
    readonly name = "rate_limit";
    private used = 0;
    constructor(private readonly max: number) {
      super();
    }
    onBeforeLlmCall(): boolean | void {
      if (this.used >= this.max) return false;
      this.used += 1;
    }
  }

  it("BEFORE_LLM_CALL false cancels the call: the provider is never asked and the turn says who stopped it", async () => {
    const { agent, provider } = agentWith([new Budget(0)], [{ text: "never" }]);
    const result = finished(await agent.run("hello", session));
    expect(provider.requests).toHaveLength(0);
    expect(result).toMatchObject({
      stopReason: "policy_violation",
      content: "The turn was stopped by the rate_limit extension (BEFORE_LLM_CALL).",
      error: { code: "POLICY_VIOLATION" },
    });
  });

  it("cancels mid-loop: the call after the tool result is the one vetoed", async () => {
    const { agent, provider } = agentWith([new Budget(1)], oneToolCall);
    const result = finished(await agent.run("2+3?", session));
    expect(provider.requests).toHaveLength(1);
    expect(result.stopReason).toBe("policy_violation");
    expect(result.iterations).toBe(2);
  });

  it("BEFORE_TOOL_EXECUTE false skips the tool; the model reads why", async () => {
    let ran = false;
    const spy = defineTool({ name: "add", description: "Add", args: z.object({ a: z.number(), b: z.number() }), execute: () => ((ran = true), "5") });
    class Sandbox extends Extension {
      readonly name = "sandbox";
      onBeforeToolExecute(ctx: ExtensionContextFor<"BEFORE_TOOL_EXECUTE">): boolean {
        return ctx.get("toolName") !== "add";
      }
    }
    const { agent, provider } = agentWith([new Sandbox()], oneToolCall, { tools: [spy] });
    finished(await agent.run("2+3?", session));
    expect(ran).toBe(false);
    expect(provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool", isError: true, content: "The add call was cancelled by the sandbox extension; it did not run." });
  });

  it("BEFORE_CONTINUATION false stops the loop before the next iteration", async () => {
    class Guard extends Extension {
      readonly name = "loop_guard";
      onBeforeContinuation(ctx: ExtensionContextFor<"BEFORE_CONTINUATION">): boolean {
        return ctx.get("context")!.iteration < 2;
      }
    }
    const { agent, provider } = agentWith([new Guard()], oneToolCall);
    const result = finished(await agent.run("2+3?", session));
    expect(provider.requests).toHaveLength(1);
    expect(result).toMatchObject({ stopReason: "policy_violation", error: { code: "POLICY_VIOLATION" } });
  });

  it("an extension that throws at BEFORE_LLM_CALL is logged, and the call goes ahead", async () => {
    class Broken extends Extension {
      readonly name = "broken";
      onBeforeLlmCall(): boolean {
        throw new Error("boom");
      }
    }
    const { agent, provider, logger } = agentWith([new Broken()], [{ text: "fine" }]);
    expect(finished(await agent.run("hello", session)).content).toBe("fine");
    expect(provider.requests).toHaveLength(1);
    expect(logger.records).toContainEqual(expect.objectContaining({ level: "error", message: "extension broken failed at BEFORE_LLM_CALL: Error: boom" }));
  });

  it("the veto is a typed policy exit that every layer lets through", () => {
    const veto = new ExtensionVetoError({ point: "BEFORE_LLM_CALL", extensionName: "rate_limit" });
    expect(isExtensionVetoError(veto) && isPolicyViolationError(veto) && mustPropagate(veto)).toBe(true);
    expect(veto).toMatchObject({ code: "POLICY_VIOLATION", stopReason: "policy_violation", point: "BEFORE_LLM_CALL", extensionName: "rate_limit" });
  });
});

describe("extensions in a ReAct agent run: UNTIL_HANDLED (approval)", () => {
  function deleteTool(deleted: string[]) {
    return defineTool({
      name: "delete_file",
      description: "Delete a file",
      args: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => (deleted.push(path), `deleted ${path}`),
    });
  }
  const deleting: Script = [{ text: "Deleting.", toolCalls: [{ name: "delete_file", args: { path: "/tmp/a" } }] }, { text: "Done." }];

  class TrustTmp extends Extension {
    readonly name = "trust_tmp";
    priority = 10;
    onApprovalRequired(ctx: ExtensionContextFor<"APPROVAL_REQUIRED">): boolean | void {
      if (ctx.get("toolCall")!.arguments.includes("/tmp/")) return true;
    }
  }
  class Never extends Extension {
    readonly name = "never_asked";
    calls = 0;
    onApprovalRequired(): boolean {
      this.calls += 1;
      return true;
    }
  }

  it("the first extension that handles APPROVAL_REQUIRED approves the call: no suspension, later ones not asked", async () => {
    const deleted: string[] = [];
    const never = new Never();
    const { agent } = agentWith([new TrustTmp(), never], deleting, { tools: [deleteTool(deleted)] });
    const result = finished(await agent.run("delete /tmp/a", session));
    expect(result.content).toBe("Done.");
    expect(deleted).toEqual(["/tmp/a"]);
    expect(never.calls).toBe(0);
  });

  it("unhandled, the turn suspends for a human; APPROVAL_RECEIVED fires when the decision comes", async () => {
    const deleted: string[] = [];
    const recorder = new Recorder();
    const { agent } = agentWith([recorder], deleting, { tools: [deleteTool(deleted)] });
    const outcome = await agent.run("delete it", session);
    expect(outcome.status).toBe("suspended");
    expect(recorder.seen).toContain("APPROVAL_REQUIRED");
    if (outcome.status !== "suspended") return;
    const resumed = await new ApprovalResumer(agent).applyResume({ transactionId: outcome.transaction.id, approved: true });
    expect(resumed.status).toBe("finished");
    expect(deleted).toEqual(["/tmp/a"]);
    expect(recorder.seen).toContain("APPROVAL_RECEIVED");
  });
});

describe("extensions in a ReAct agent run: COLLECT", () => {
  it("observes the message, every streamed chunk and the send", async () => {
    const recorder = new Recorder();
    const { agent } = agentWith([recorder], [{ text: "Hello there, friend." }]);
    finished(await agent.run("hi", session));
    expect(recorder.chunks.join("")).toBe("Hello there, friend.");
    expect(recorder.seen[0]).toBe("BEFORE_MESSAGE_PROCESS");
    expect(recorder.seen.at(-1)).toBe("AFTER_RESPONSE_SEND");
  });

  it("TOOL_ERROR sees a tool that threw; REPAIRABLE_ERROR's suggestions reach the model", async () => {
    const failing = defineTool({ name: "add", description: "Add", args: z.object({ a: z.number(), b: z.number() }), execute: () => { throw new Error("adder offline"); } });
    const errors: unknown[] = [];
    class Repair extends Extension {
      readonly name = "repair";
      onToolError(ctx: ExtensionContextFor<"TOOL_ERROR">): void {
        errors.push(ctx.get("error"));
      }
      onRepairableError(): string {
        return "Hint: add the numbers yourself.";
      }
    }
    const { agent, provider } = agentWith([new Repair()], oneToolCall, { tools: [failing] });
    finished(await agent.run("2+3?", session));
    expect(errors).toEqual([new Error("adder offline")]);
    expect(provider.requests[1].messages.at(-1)).toMatchObject({
      role: "tool",
      isError: true,
      content: "Tool add failed: Error: adder offline\nHint: add the numbers yourself.",
    });
  });

  it("CRITICAL_ERROR fires when the turn ends in an error", async () => {
    const recorder = new Recorder();
    const { agent } = agentWith([recorder], [{ fail: { message: "provider down" } }]);
    expect(finished(await agent.run("hi", session)).stopReason).toBe("error");
    expect(recorder.seen).toContain("CRITICAL_ERROR");
    expect(recorder.seen).not.toContain("AFTER_LLM_RESPONSE");
  });
});
