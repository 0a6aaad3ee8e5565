import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { modelSettingsOf, NO_MODEL_MESSAGE } from "./agent-nodes";
import { testServices } from "./testing/test-services";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const deliver = (target: string, content: string) => ({ toolCalls: [{ name: "deliver", args: { target, content } }] });
const kb = (args: Record<string, unknown>) => ({ toolCalls: [{ name: "knowledge_base", args }] });

describe("agent nodes in the app", () => {
  it("model settings come from MODEX_LLM_BASE_URL and MODEX_LLM_MODEL; without both there is no model", () => {
    expect(modelSettingsOf({ MODEX_LLM_BASE_URL: "http://127.0.0.1:11434/v1", MODEX_LLM_MODEL: "qwen3" })).toEqual({ baseURL: "http://127.0.0.1:11434/v1", model: "qwen3", apiKey: undefined });
    expect(modelSettingsOf({ MODEX_LLM_MODEL: "qwen3" })).toBeNull();
    // The offline demo model needs no server.
    expect(modelSettingsOf({ MODEX_LLM_MODEL: "modex-demo" })).toEqual({ baseURL: "", model: "modex-demo" });
    expect(NO_MODEL_MESSAGE).toContain("MODEX_LLM_MODEL=modex-demo");
  });

  it("the editor's JSON Schema knows the agent node type", async () => {
    await using t = testServices("memory");
    expect(JSON.stringify(t.services.specs.jsonSchema())).toContain('"const":"agent"');
  });

  it("runs review-cycle with a scripted model: the agents loop, share the knowledge base, and the reviewer's answer is the result", async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), "modex-agents-"));
    dirs.push(workspace);
    const scripts: Record<string, Script> = {
      coder: [kb({ action: "write", pattern: "decisions", content: "- add returns a + b" }), deliver("reviewer", "add(a, b) = a + b"), { text: "sent" }],
      reviewer: [kb({ action: "read", pattern: "decisions" }), deliver("__end__", "add(a, b) = a + b: correct"), { text: "approved" }],
    };
    const providers = Object.fromEntries(Object.entries(scripts).map(([n, s]) => [n, new ScriptedProvider(s)]));
    await using t = testServices("sqlite", { provider: (_c, node) => providers[node], workspace });
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await t.settled(instanceId)).status).toBe("completed");
    const view = await t.services.instances.get({ instanceId });
    expect(view.summary.result?.map((p) => p.content)).toEqual(["add(a, b) = a + b: correct"]);
    const dir = path.join(workspace, ".modex/graphs/instances", instanceId);
    expect(readFileSync(path.join(dir, "decisions.md"), "utf8")).toBe("- add returns a + b\n");
    expect(readFileSync(path.join(dir, "changelog.md"), "utf8")).toContain("· coder · append decisions");
    // The reviewer read the coder's decision through its own knowledge_base call.
    expect(providers.reviewer.requests[1].messages.at(-1)?.content).toContain("- add returns a + b");
  });

  it("without a model, an agent node fails with a message that says what to set", async () => {
    await using t = testServices("sqlite", { model: null });
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "x" });
    expect((await t.settled(instanceId)).status).toBe("failed");
    const view = await t.services.instances.get({ instanceId });
    expect(view.invocations.find((i) => i.node === "coder")?.error).toContain(NO_MODEL_MESSAGE);
  });
});
