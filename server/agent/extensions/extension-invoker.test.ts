import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/messages";
import { recordingLogger } from "../logger";
import { Extension, type ExtensionContextFor } from "./extension";
import { ExtensionContext } from "./extension-context";
import { ExtensionInvoker } from "./extension-invoker";
import { ExtensionManager } from "./extension-manager";

class PromptSuffix extends Extension {
  readonly name = "prompt_suffix";
  onAfterPromptBuild(ctx: ExtensionContextFor<"AFTER_PROMPT_BUILD">): ChatMessage[] {
    return [...ctx.get("prompt", []), { role: "user", content: "Answer briefly." }];
  }
  onBeforeMessageProcess(): void {}
  onBeforeLlmCall(): boolean {
    return false;
  }
  onApprovalRequired(): boolean {
    return true;
  }
}

function setup() {
  const logger = recordingLogger();
  const manager = new ExtensionManager({ logger });
  manager.register(new PromptSuffix());
  return { logger, invoker: new ExtensionInvoker(manager) };
}

const prompt = (): ChatMessage[] => [{ role: "user", content: "hi" }];

describe("ExtensionInvoker", () => {
  it("uses each point's default config: TRANSFORM, COLLECT, CANCELLABLE, UNTIL_HANDLED", async () => {
    const { invoker } = setup();
    expect(await invoker.invoke("AFTER_PROMPT_BUILD", new ExtensionContext({ data: { prompt: prompt() } }))).toEqual([
      { role: "user", content: "hi" },
      { role: "user", content: "Answer briefly." },
    ]);
    expect(await invoker.invoke("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "hi" } }))).toEqual([]);
    expect(await invoker.invoke("BEFORE_LLM_CALL", new ExtensionContext({ data: { prompt: prompt(), llmParams: { tools: [] } } }))).toBe(false);
    const toolCall = { id: "c", name: "t", arguments: "{}" };
    expect(await invoker.invoke("APPROVAL_REQUIRED", new ExtensionContext({ data: { toolCall, message: "" } }))).toBe(true);
  });

  it("an inline config overrides the default for one call", async () => {
    const { invoker, logger } = setup();
    const ctx = new ExtensionContext({ data: { prompt: prompt() } });
    const collected = await invoker.invoke("AFTER_PROMPT_BUILD", ctx, { mode: "COLLECT" });
    expect(collected).toHaveLength(1);
    expect(ctx.get("prompt")).toEqual(prompt());
    // The spec's example: TRANSFORM on "prompt" expecting a string; our prompts are message lists.
    await invoker.invoke("AFTER_PROMPT_BUILD", ctx, { mode: "TRANSFORM", transformKey: "prompt", expectedType: "string" });
    expect(logger.records).toContainEqual(expect.objectContaining({ level: "warn", message: "AFTER_PROMPT_BUILD returned array, expected string" }));
  });

  it("configure replaces a default for every later call", async () => {
    const { invoker } = setup();
    invoker.configure("BEFORE_LLM_CALL", { mode: "COLLECT" });
    expect(invoker.configFor("BEFORE_LLM_CALL")).toEqual({ mode: "COLLECT" });
    expect(await invoker.invoke("BEFORE_LLM_CALL", new ExtensionContext({ data: { prompt: prompt(), llmParams: { tools: [] } } }))).toEqual([false]);
  });

  it("with no extension registered, each mode returns its neutral value", async () => {
    const invoker = new ExtensionInvoker(new ExtensionManager());
    expect(await invoker.invoke("BEFORE_MESSAGE_PROCESS", new ExtensionContext({ data: { message: "m" } }))).toEqual([]);
    expect(await invoker.invoke("BEFORE_RESPONSE_SEND", new ExtensionContext({ data: { response: "r" } }))).toBe("r");
    expect(await invoker.invoke("BEFORE_TOOL_EXECUTE", new ExtensionContext())).toBe(true);
    expect(await invoker.invoke("APPROVAL_REQUIRED", new ExtensionContext())).toBeUndefined();
  });
});
